package main

import (
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/icecreamcorp/go-cancellation-workshop/internal/fakestock"
	"github.com/icecreamcorp/go-cancellation-workshop/internal/leakcheck"
	"github.com/icecreamcorp/go-cancellation-workshop/internal/menutest"
)

// Task 3: the deadline covers the whole exchange with the stock service —
// its headers and its body.
func TestDeadlineCoversBody(t *testing.T) {
	requireNoLeak(t)
	leakcheck.Check(t)

	for _, tc := range []struct {
		what    string
		headers time.Duration // when the stock service sends its headers
	}{
		{"sends its headers at once", 0},
		{"sends its headers after 600ms", 600 * time.Millisecond},
	} {
		t.Run("answers 504 at 1s when the stock service "+tc.what+" and then stalls its body", func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				stock := menutest.NewStock(t, fakestock.Reply{Delay: tc.headers, StallBody: true})
				menu := menutest.Start(newTestMenu(stock))

				time.Sleep(testTimeout - time.Nanosecond)
				synctest.Wait()
				require.False(t, menu.Answered(),
					"the stock service %s, then stalls its body; %v; want 504 at 1s, not before: reading the body is part of the call — cancel the context only once the body is read (task 3: defer cancel() in fetchStockWithin, around the fetchStock that reads it)", tc.what, menu)

				time.Sleep(time.Nanosecond)
				synctest.Wait()
				require.True(t, menu.Answered(),
					"the stock service %s, then stalls its body; %v; want 504 at 1s: the deadline is for the whole exchange, body included — one deadline from the start, not one for the headers and another for the body (task 3)", tc.what, menu)
				assert.Equal(t, http.StatusGatewayTimeout, menu.Rec.Code, "%v; want 504: the stock service was too slow to send its body (task 3)", menu)
				calls := stock.Calls()
				require.Len(t, calls, 1, "%v, and the stock service is still stalling its body for it: the call goes on (task 1 first, then task 3: the same context covers the body)", menu)
				assert.Equal(t, fakestock.Abandoned, calls[0].Outcome, "the stock service's request: %v; want abandoned (task 3)", calls[0])
				assert.Equal(t, testTimeout, calls[0].Took(), "the stock service's request: %v; want it to end at the timeout (task 3)", calls[0])
				assert.Zero(t, stock.OpenBodies(), "want the response body closed (step 02, task 3)")
			})
		})
	}
}
