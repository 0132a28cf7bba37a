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
	// The sender closes: whoever ranges over totals learns that no more
	// totals are coming. One defer closes it on every path, exactly once;
	// a close in the loop as well would panic ("close of closed channel").
	defer close(totals)
	for {
		// Every receive and every send is a select with ctx.Done(). A bare
		// `totals <- t` blocks until someone receives — and once the
		// consumer has stopped reading, nobody ever will: the goroutine
		// running this stage leaks, with everything it refers to. That is
		// the most common goroutine leak in Go, and no error reports it;
		// goleak in the tests does.
		var order Order
		select {
		case o, ok := <-orders:
			if !ok {
				return nil // every order has its total
			}
			order = o
		case <-ctx.Done():
			return context.Cause(ctx)
		}
		t := Total{OrderID: order.ID, Cents: order.Scoops * order.CentsPerScoop}
		select {
		case totals <- t:
		case <-ctx.Done():
			return context.Cause(ctx)
		}
	}
}
