package platform

import (
	"context"
	"errors"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/icecreamcorp/go-cancellation-workshop/internal/leakcheck"
)

func TestPipeline(t *testing.T) {
	begun(t, "Totals", func() error {
		orders := make(chan Order)
		close(orders)
		return Totals(ended(), orders, make(chan Total, 1))
	})
	leakcheck.Check(t)
	want := []Total{{OrderID: "A1", Cents: 500}, {OrderID: "A2", Cents: 300}, {OrderID: "A3", Cents: 600}}
	for _, tc := range []struct {
		name string
		take int  // totals the consumer takes before it cancels; -1: all, no cancel
		wait bool // no order ever comes
		fix  string
	}{
		{name: "three orders", take: -1, fix: "send Scoops*CentsPerScoop per order; at the end of orders, close totals and return nil"},
		{name: "cancel while receiving", take: 0, wait: true, fix: "receive in a select with ctx.Done(); defer close(totals)"},
		{name: "cancel while sending", take: 1, fix: "send in a select with ctx.Done(), not a bare totals <- t; defer close(totals)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ctx, cancel := context.WithCancelCause(context.Background())
				orders, totals := make(chan Order, 3), make(chan Total)
				if !tc.wait {
					orders <- Order{ID: "A1", Scoops: 2, CentsPerScoop: 250}
					orders <- Order{ID: "A2", Scoops: 1, CentsPerScoop: 300}
					orders <- Order{ID: "A3", Scoops: 3, CentsPerScoop: 200}
					close(orders)
				}
				call := goCall(func() (struct{}, error) { return struct{}{}, Totals(ctx, orders, totals) })
				defer func() { // set a Totals that still waits free, for at most a minute
					cancel(nil)
					if tc.wait {
						close(orders)
					}
					for limit := time.After(time.Minute); !call.returned(); {
						select {
						case <-totals:
						case <-call.done:
						case <-limit:
							return
						}
					}
				}()

				wantGot, wantErr := want, error(nil)
				if tc.take >= 0 {
					wantGot, wantErr = want[:tc.take], errClosing
				}
				var got []Total
				closed := false
			read:
				for !closed && len(got) <= len(want) {
					if len(got) == tc.take {
						synctest.Wait()
						cancel(errClosing)
					}
					synctest.Wait() // Totals has sent, or waits to, or has returned
					select {
					case total, open := <-totals:
						if closed = !open; open {
							got = append(got, total)
						}
					default:
						break read
					}
				}
				if synctest.Wait(); !slices.Equal(got, wantGot) || !closed || !call.returned() || call.panicked != nil || !errors.Is(call.err, wantErr) {
					t.Fatalf("Totals sent %v, closed totals %v, %v; want %v, true, returned %v (%s)", got, closed, call, wantGot, wantErr, tc.fix)
				}
			})
		})
	}
}
