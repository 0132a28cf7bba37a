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

// Task 3: the race answers on time, and leaves the stock service working for
// nobody. These tests pass on a correct version 2: they show the waste that
// step 05 removes. In step 05 the same checks say "abandoned after 1s".
func TestStockKeepsWorking(t *testing.T) {
	requireNoLeak(t)
	leakcheck.Check(t)

	t.Run("the stock service finishes, 9s later, the request the menu gave up on", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			stock := menutest.NewStock(t, fakestock.Reply{Delay: 10 * time.Second})
			menu := menutest.Start(newTestMenu(stock))

			time.Sleep(testTimeout)
			synctest.Wait()
			require.True(t, menu.Answered(), "%v; the stock service takes 10s; want 504 after 1s (task 1: race the call against a timer)", menu)
			require.Equal(t, http.StatusGatewayTimeout, menu.Rec.Code, "%v; want 504 (task 1)", menu)
			require.Empty(t, stock.Calls(),
				"the menu answered 504 and the stock service's request ended with it: the menu cancelled the call. This step asks for the race — a goroutine and a select on a timer, not http.Client.Timeout or a context — which leaves the call running; cancelling it properly is step 05 (task 1)")
			assert.Equal(t, 1, stock.InFlight(), "the menu answered 504; the stock service should still be working on its request")

			time.Sleep(10*time.Second - testTimeout)
			synctest.Wait()
			calls := stock.Calls()
			require.Len(t, calls, 1, "the stock service should have finished its request after 10s")
			assert.Equal(t, fakestock.Completed, calls[0].Outcome,
				"the stock service's request: %v; want completed after 10s — 9s of work for a caller who had left: the waste step 05 removes", calls[0])
			assert.Equal(t, 10*time.Second, calls[0].Took(), "the stock service's request: %v; want completed after 10s", calls[0])
			assert.Zero(t, stock.OpenBodies(),
				"nobody was waiting for the stock service's late answer, and its body was left open; want the goroutine to close it (step 02, task 3: defer resp.Body.Close() in fetchStock)")
			t.Logf("the menu answered %d after %v; the stock service's %v: %v of work for a caller who had left",
				menu.Rec.Code, menu.Took, calls[0], calls[0].Took()-menu.Took)
		})
	})

	t.Run("a hundred menus that gave up leave a hundred stock requests running", func(t *testing.T) {
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
			assert.Equal(t, n, stock.InFlight(),
				"%d menus answered 504 after 1s; the stock service is still working on %d requests; want %d: with the race, every caller who left leaves its request running (task 1: a race, not a cancellation — that is step 05)", n, stock.InFlight(), n)
			t.Logf("%d menus answered 504 after 1s; the stock service is still working on %d requests, for nobody", n, stock.InFlight())

			time.Sleep(10*time.Second - testTimeout)
			synctest.Wait()
			assert.Zero(t, stock.InFlight(), "after 10s the stock service should have finished every request")
			assert.Zero(t, stock.OpenBodies(), "want every late answer's body closed (step 02, task 3)")
		})
	})
}
