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
	want := []Total{{"A1", 500}, {"A2", 300}, {"A3", 600}}
	for _, tc := range []struct {
		name string
		take int  // totals the consumer takes before it cancels; -1: all, no cancel
		wait bool // no order ever comes
		fix  string
	}{
		{"three orders", -1, false, "send Scoops*CentsPerScoop per order; at the end of orders, close totals and return nil"},
		{"cancel while receiving", 0, true, "receive in a select with ctx.Done(); defer close(totals)"},
		{"cancel while sending", 1, false, "send in a select with ctx.Done(), not a bare totals <- t; defer close(totals)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ctx, cancel := context.WithCancelCause(context.Background())
				orders := make(chan Order, 3)
				if !tc.wait {
					orders <- Order{ID: "A1", Scoops: 2, CentsPerScoop: 250}
					orders <- Order{ID: "A2", Scoops: 1, CentsPerScoop: 300}
					orders <- Order{ID: "A3", Scoops: 3, CentsPerScoop: 200}
					close(orders)
				}
				totals := make(chan Total)
				call := goCall(func() (struct{}, error) { return struct{}{}, Totals(ctx, orders, totals) })
				defer func() { // set a Totals that waits on free, for at most a minute
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

				var got []Total
				for limit := time.After(time.Minute); len(got) != tc.take && len(got) <= len(want); {
					var total Total
					var open bool
					select {
					case total, open = <-totals:
					case <-limit:
					}
					if !open {
						break
					}
					got = append(got, total)
				}
				if tc.take < 0 && !slices.Equal(got, want) {
					t.Errorf("Totals(ctx, 3 orders, totals) sent %v, want %v (%s)", got, want, tc.fix)
				}
				wantErr := error(nil)
				if tc.take >= 0 {
					synctest.Wait()
					cancel(errClosing)
					wantErr = errClosing
				}
				synctest.Wait()
				if !call.returned() || call.panicked != nil || !errors.Is(call.err, wantErr) {
					t.Fatalf("Totals %v, want it returned with %v (%s)", call, wantErr, tc.fix)
				}
				select {
				case total, open := <-totals:
					if open {
						t.Fatalf("totals held %v after Totals returned, want it closed (%s)", total, tc.fix)
					}
				default:
					t.Fatalf("Totals returned and left totals open, want it closed (%s)", tc.fix)
				}
			})
		})
	}
}
