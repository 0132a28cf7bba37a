package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/icecreamcorp/go-cancellation-workshop/internal/fakestock"
	"github.com/icecreamcorp/go-cancellation-workshop/internal/leakcheck"
	"github.com/icecreamcorp/go-cancellation-workshop/internal/menutest"
)

// Task 2: when the menu's own client leaves, the stock call ends too.
//
// net/http cancels a request's context when its client hangs up. Here the
// test plays that client: it builds the request with a context of its own,
// and cancels it.
func TestClientLeaves(t *testing.T) {
	requireNoLeak(t)
	leakcheck.Check(t)

	t.Run("cancels the stock request the instant the menu's client leaves, and answers no menu", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			stock := menutest.NewStock(t, fakestock.Reply{Delay: 10 * time.Second})
			ctx, hangUp := context.WithCancel(context.Background())
			defer hangUp()
			menu := menutest.StartRequest(newTestMenu(stock), httptest.NewRequest(http.MethodGet, "/menu", nil).WithContext(ctx))

			time.Sleep(300 * time.Millisecond)
			hangUp()
			synctest.Wait()
			require.True(t, menu.Answered(),
				"the menu's client left after 300ms; %v, still waiting for the stock service: want the handler to return at once (task 2: derive the timeout's context from r.Context(), not context.Background() — r.Context() ends when the client leaves)", menu)
			calls := stock.Calls()
			require.Len(t, calls, 1, "the menu's client left after 300ms and the menu returned, but the stock service is still working on its request (task 2: the stock call's context must be derived from r.Context())")
			assert.Equal(t, fakestock.Abandoned, calls[0].Outcome, "the stock service's request: %v; want abandoned (task 2)", calls[0])
			assert.Equal(t, 300*time.Millisecond, calls[0].Took(), "the stock service's request: %v; want it to end when the menu's client left, after 300ms (task 2)", calls[0])
			assertNoMenuForCallerGone(t, menu, "the menu's client left after 300ms",
				"task 2: once r.Context() has ended, answer 499 — a cancelled context is no timeout, and the stock service did not fail")
		})
	})

	t.Run("a client who leaves after the answer changes nothing", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			stock := menutest.NewStock(t, fakestock.Reply{Delay: 300 * time.Millisecond})
			ctx, hangUp := context.WithCancel(context.Background())
			menu := menutest.StartRequest(newTestMenu(stock), httptest.NewRequest(http.MethodGet, "/menu", nil).WithContext(ctx))

			time.Sleep(300 * time.Millisecond)
			synctest.Wait()
			hangUp()
			require.True(t, menu.Answered(), "%v; the stock service answered after 300ms; want 200 then (task 1)", menu)
			assert.Equal(t, http.StatusOK, menu.Rec.Code, "%v; want 200 (task 2)", menu)
			calls := stock.Calls()
			require.Len(t, calls, 1, "want the stock service's request ended")
			assert.Equal(t, fakestock.Completed, calls[0].Outcome, "the stock service's request: %v; want completed", calls[0])
		})
	})
}
