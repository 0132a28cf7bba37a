package main

import (
	"fmt"
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/icecreamcorp/go-cancellation-workshop/internal/fakestock"
	"github.com/icecreamcorp/go-cancellation-workshop/internal/menutest"
)

// Task 3: the race answers on time, and leaves the stock service working for
// nobody. This passes on a correct version 2: it shows the waste that step
// 05 removes.
func TestStockKeepsWorking(t *testing.T) {
	for _, n := range []int{1, 100} {
		t.Run(fmt.Sprint(n), func(t *testing.T) { // menus at once
			synctest.Test(t, func(t *testing.T) {
				stock := menutest.NewStock(t, fakestock.Reply{Delay: 10 * time.Second})
				h := newTestMenu(stock)
				menus := make([]*menutest.Pending, n)
				for i := range menus {
					menus[i] = menutest.Start(h)
				}

				time.Sleep(testTimeout)
				synctest.Wait()
				for _, menu := range menus {
					require.True(t, menu.Answered() && menu.Rec.Code == http.StatusGatewayTimeout, "%v; want 504 after 1s", menu)
				}
				require.Empty(t, stock.Calls(), "the menus answered 504: got the stock requests ended, want them still running (race, do not cancel: no http.Client.Timeout, no context — that is step 05)")
				assert.Equal(t, n, stock.InFlight(), "got %d stock requests still running, want %d", stock.InFlight(), n)
				t.Logf("%d menus answered 504 after 1s; the stock service is still working on %d requests, for nobody", n, stock.InFlight())

				time.Sleep(10*time.Second - testTimeout)
				synctest.Wait()
				calls := stock.Calls()
				require.Len(t, calls, n, "got %d stock requests finished after 10s, want %d", len(calls), n)
				for _, call := range calls {
					require.True(t, call.Outcome == fakestock.Completed && call.Took() == 10*time.Second, "got the stock %v, want completed after 10s, 9s after the menu gave up", call)
				}
				t.Logf("after 10s the stock service completed all %d requests: 9s of work each, for callers who had left", n)
				assert.Zero(t, stock.OpenBodies(), "got %d late answers' bodies left open, want them closed (defer resp.Body.Close() in fetchStock)", stock.OpenBodies())
			})
		})
	}
}
