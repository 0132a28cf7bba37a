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

// Task 1: the timeout cancels the stock call. In step 03 these same checks
// found the request completed, 9s after the menu had given up on it.
func TestStockStopsWorking(t *testing.T) {
	requireNoLeak(t)
	leakcheck.Check(t)

	t.Run("the stock service's request is abandoned at 1s, the instant the menu answers 504", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			stock := menutest.NewStock(t, fakestock.Reply{Delay: 10 * time.Second})
			menu := menutest.Start(newTestMenu(stock))

			time.Sleep(testTimeout)
			synctest.Wait()
			require.True(t, menu.Answered(), "%v; the stock service takes 10s; want 504 after 1s (task 1)", menu)
			require.Equal(t, http.StatusGatewayTimeout, menu.Rec.Code, "%v; want 504 (task 1)", menu)
			calls := stock.Calls()
			require.Len(t, calls, 1,
				"%v, and the stock service is still working on its request: the menu gave up and the call goes on, as in version 2 (task 1: build the request with http.NewRequestWithContext and a context that times out, and drop the goroutine and the channel)", menu)
			assert.Equal(t, fakestock.Abandoned, calls[0].Outcome, "the stock service's request: %v; want abandoned: its caller gave up (task 1)", calls[0])
			assert.Equal(t, testTimeout, calls[0].Took(), "the stock service's request: %v; want it to end exactly when the menu gave up, after 1s (task 1)", calls[0])
			assert.Zero(t, stock.OpenBodies(), "want no response body left open (step 02, task 3)")
			assert.Contains(t, menu.Rec.Body.String(), menutest.StockURL,
				"%v; want the 504's message to keep the error of the call beside errStockTooSlow: it names the stock URL and what went wrong (task 1: return an error that wraps both)", menu)
		})
	})

	t.Run("a hundred menus that gave up leave no stock request running", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			const n = 100
			stock := menutest.NewStock(t, fakestock.Reply{Delay: 10 * time.Second})
			h := newTestMenu(stock)
			menus := make([]*menutest.Pending, n)
			for i := range menus {
				menus[i] = menutest.Start(h)
			}

			time.Sleep(testTimeout)
			synctest.Wait()
			for _, menu := range menus {
				require.True(t, menu.Answered(), "%v; want 504 after 1s (task 1)", menu)
				require.Equal(t, http.StatusGatewayTimeout, menu.Rec.Code, "%v; want 504 (task 1)", menu)
			}
			assert.Zero(t, stock.InFlight(),
				"%d menus answered 504 after 1s; the stock service is still working on %d of their requests; want none: each menu cancels its own call (task 1: in step 03 all %d went on for 9s more)", n, stock.InFlight(), n)
			assert.Len(t, stock.Calls(), n, "want every stock request ended — abandoned — at 1s (task 1)")
		})
	})
}

// requireCancelsAtTimeout stops t at once, before it spends real time on
// sockets, unless the menu does in virtual time what the real network will
// then be asked to show: answer 504 at its timeout, and cancel the stock
// service's request then. A menu that passes pays a few milliseconds. A menu
// that leaves a goroutine blocked (requireNoLeak) is not checked here — in a
// bubble, that goroutine would crash the test binary — and t goes on to say
// what is wrong with it. Call it outside any synctest bubble.
func requireCancelsAtTimeout(t *testing.T) {
	t.Helper()
	if lateLeak(t) != nil {
		return
	}
	synctest.Test(t, func(t *testing.T) {
		stock := menutest.NewStock(t, fakestock.Reply{Delay: 10 * time.Second})
		menu := menutest.Start(newTestMenu(stock))

		time.Sleep(testTimeout)
		synctest.Wait()
		require.True(t, menu.Answered(), "checked first in virtual time, the stock service taking 10s: %v; want 504 after 1s (task 1)", menu)
		require.Equal(t, http.StatusGatewayTimeout, menu.Rec.Code, "checked first in virtual time, the stock service taking 10s: %v; want 504 (task 1)", menu)
		require.Len(t, stock.Calls(), 1,
			"checked first in virtual time, the stock service taking 10s: %v, and the stock service is still working on its request: the menu gave up and the call goes on, as in version 2 (task 1: build the request with http.NewRequestWithContext and a context that times out, and drop the goroutine and the channel)", menu)
	})
}
