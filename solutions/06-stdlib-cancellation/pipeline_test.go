package platform

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"github.com/icecreamcorp/go-cancellation-workshop/internal/leakcheck"
	"github.com/stretchr/testify/assert"
)

func TestPipeline(t *testing.T) {
	begun(t, "Totals", beginTotals)
	leakcheck.Check(t)
	errClosing := errors.New("the shop is closing")
	threeOrders := func() chan Order {
		orders := make(chan Order, 3)
		orders <- Order{ID: "A1", Scoops: 2, CentsPerScoop: 250}
		orders <- Order{ID: "A2", Scoops: 1, CentsPerScoop: 300}
		orders <- Order{ID: "A3", Scoops: 3, CentsPerScoop: 200}
		close(orders)
		return orders
	}

	t.Run("three orders", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			totals := make(chan Total)
			run := startTotals(context.Background(), threeOrders(), totals)
			defer run.finish(t, nil, totals)

			var got []Total
			closed := false
		read:
			for {
				select {
				case total, ok := <-totals:
					if !ok {
						closed = true
						break read
					}
					got = append(got, total)
				case <-time.After(time.Minute):
					break read
				}
			}
			assert.Equal(t, []Total{{"A1", 500}, {"A2", 300}, {"A3", 600}}, got,
				"totals sent by Totals(ctx, 3 orders, totals); want one per order, Scoops×CentsPerScoop, in order (task 2)")
			synctest.Wait()
			if run.panicked() {
				return // finish reports it
			}
			assert.True(t, closed, "Totals(ctx, 3 orders then closed, totals) never closed totals; want it closed once the orders run out, so that a consumer's range ends (task 2: the only sender closes, with defer close(totals))")
			if assert.True(t, run.returned(), "Totals was still running after the orders ran out and every total was read (task 2: return when orders is closed)") {
				assert.NoError(t, run.err, "Totals' error after the orders ran out and every total was read; want nil (task 2)")
			}
		})
	})

	t.Run("cancel while receiving", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			ctx, cancel := context.WithCancelCause(context.Background())
			defer cancel(nil)
			orders := make(chan Order) // no order ever comes
			totals := make(chan Total, 1)
			run := startTotals(ctx, orders, totals)
			defer run.finish(t, orders, totals)

			time.Sleep(time.Second)
			cancel(errClosing)
			synctest.Wait()
			if run.panicked() {
				return // finish reports it
			}
			if !run.returned() {
				assert.Fail(t, "Totals was still waiting for an order after its context was cancelled; want it to return at once (task 2: receive in a select with ctx.Done())")
				return
			}
			assert.ErrorIs(t, run.err, errClosing, "Totals' error after its context was cancelled with the cause %q (task 2: return context.Cause(ctx))", errClosing)
			assertTotalsClosed(t, totals, "Totals returned after its context was cancelled, but left totals open; want it closed on every way out (task 2: defer close(totals))")
		})
	})

	t.Run("cancel while sending", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			ctx, cancel := context.WithCancelCause(context.Background())
			defer cancel(nil)
			totals := make(chan Total)
			run := startTotals(ctx, threeOrders(), totals)
			defer run.finish(t, nil, totals)

			select {
			case <-totals: // the consumer takes one total, then stops reading
			case <-time.After(time.Minute):
				assert.Fail(t, "Totals(ctx, 3 orders, totals) sent no total in a minute (task 2: send each order's total on totals)")
				return
			}
			synctest.Wait() // Totals is now waiting to send the second total
			cancel(errClosing)
			synctest.Wait()
			if run.panicked() {
				return // finish reports it
			}
			if !run.returned() {
				assert.Fail(t, "Totals was still blocked sending a total after the consumer stopped reading and cancelled the context; want it to return at once, or its goroutine leaks forever (task 2: send in a select with ctx.Done(), not a bare totals <- t)")
				return
			}
			assert.ErrorIs(t, run.err, errClosing, "Totals' error after its context was cancelled with the cause %q (task 2: return context.Cause(ctx))", errClosing)
			assertTotalsClosed(t, totals, "Totals returned after its context was cancelled, but left totals open; want it closed on every way out (task 2: defer close(totals))")
		})
	})
}

// beginTotals calls Totals with a context that has ended, for begun.
func beginTotals() error {
	orders := make(chan Order)
	close(orders)
	return Totals(ended(), orders, make(chan Total, 1))
}

// totalsRun is a call to Totals running in a goroutine of its own.
type totalsRun struct {
	done       chan struct{} // closed when Totals has returned or panicked
	err        error         // what Totals returned; read it only once done is closed
	panicValue any           // what Totals panicked with, if it did
}

func startTotals(ctx context.Context, orders <-chan Order, totals chan<- Total) *totalsRun {
	r := &totalsRun{done: make(chan struct{})}
	go func() {
		defer close(r.done)
		defer func() { r.panicValue = recover() }()
		r.err = Totals(ctx, orders, totals)
	}()
	return r
}

// returned reports, without waiting, whether Totals has returned. Call
// synctest.Wait first, so that Totals has run as far as it can.
func (r *totalsRun) returned() bool {
	select {
	case <-r.done:
		return r.panicValue == nil
	default:
		return false
	}
}

func (r *totalsRun) panicked() bool {
	select {
	case <-r.done:
		return r.panicValue != nil
	default:
		return false
	}
}

// finish sets a Totals that has not returned free, so that its goroutine
// does not outlive the test's bubble: it closes orders (if the test owns
// it) and takes every total, for at most a minute of virtual time. It
// reports a panic.
func (r *totalsRun) finish(t *testing.T, orders chan Order, totals <-chan Total) {
	t.Helper()
	if orders != nil {
		close(orders)
	}
	limit := time.After(time.Minute)
	for {
		select {
		case <-totals:
			continue
		case <-r.done:
		case <-limit:
			assert.Fail(t, "Totals was still running a minute after its orders were closed and its totals taken (task 2: return when orders is closed)")
		}
		break
	}
	if r.panicked() {
		assert.Fail(t, fmt.Sprintf("Totals panicked: %v; want it to close totals exactly once (task 2: one defer close(totals), and no other close)", r.panicValue))
	}
}

// assertTotalsClosed checks, without waiting, that totals is closed and empty.
func assertTotalsClosed(t *testing.T, totals <-chan Total, msg string) {
	t.Helper()
	select {
	case total, ok := <-totals:
		if ok {
			assert.Fail(t, fmt.Sprintf("totals held %v after Totals returned; want nothing more (task 2)", total))
		} else {
			return
		}
	default:
	}
	assert.Fail(t, msg)
}
