package platform

import "context"

// An Order is one customer's order: so many scoops at a price per scoop.
type Order struct {
	ID            string
	Scoops        int
	CentsPerScoop int
}

// A Total is what an order costs.
type Total struct {
	OrderID string
	Cents   int
}

// Totals is one stage of the order pipeline: it receives orders from
// orders and sends each one's total on totals, in the same order.
//
// Totals is the only sender on totals, so it closes totals when it returns,
// once, whichever way it returns. It returns nil once orders is closed and
// every total has been sent. It returns context.Cause(ctx) as soon as ctx
// ends, whether it was waiting for the next order or for someone to take
// its total: a consumer that stops reading and cancels must not leave
// Totals blocked forever.
func Totals(ctx context.Context, orders <-chan Order, totals chan<- Total) error {
	// TODO(task 2): for each order, send Total{OrderID, Scoops*CentsPerScoop}.
	// Make every receive and every send a select that also waits on
	// ctx.Done(), and close totals exactly once, on every way out.
	close(totals)
	return errNotImplemented
}
