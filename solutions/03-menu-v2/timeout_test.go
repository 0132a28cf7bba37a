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
	"github.com/icecreamcorp/go-cancellation-workshop/internal/leakcheck"
	"github.com/icecreamcorp/go-cancellation-workshop/internal/menutest"
)

// Task 1: version 2 answers within its timeout, whatever the stock service does.
func TestTimeout(t *testing.T) {
	requireNoLeak(t)
	leakcheck.Check(t)

	for _, timeout := range []time.Duration{time.Second, 250 * time.Millisecond} {
		t.Run(fmt.Sprintf("answers 504 exactly %v after the call when the stock service takes 10s", timeout), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				stock := menutest.NewStock(t, fakestock.Reply{Delay: 10 * time.Second})
				menu := menutest.Start(newMenuService(stock.Client(), menutest.StockURL, timeout).handler())

				time.Sleep(timeout - time.Nanosecond)
				synctest.Wait()
				require.False(t, menu.Answered(), "%v; want 504 after %v, not before (task 1: a timer of s.timeout)", menu, timeout)

				time.Sleep(time.Nanosecond)
				synctest.Wait()
				require.True(t, menu.Answered(), "%v; the stock service takes 10s; want 504 after %v (task 1: race the call against a timer)", menu, timeout)
				assert.Equal(t, http.StatusGatewayTimeout, menu.Rec.Code,
					"%v; want 504 Gateway Timeout (task 1: the stock service was too slow; 504, not 500: the README says why)", menu)
				menutest.AssertJSONError(t, menu.Rec, "task 1: answer errors with writeError")
			})
		})
	}

	t.Run("answers 200 when the stock service answers 1ns before the timeout", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			stock := menutest.NewStock(t, fakestock.Reply{Delay: testTimeout - time.Nanosecond})
			menu := menutest.Start(newTestMenu(stock))

			time.Sleep(testTimeout - time.Nanosecond)
			synctest.Wait()
			require.True(t, menu.Answered(), "%v; the stock service answered after %v; want 200 then (task 1: select on the result as well as the timer)", menu, testTimeout-time.Nanosecond)
			assert.Equal(t, http.StatusOK, menu.Rec.Code, "%v; want 200 (task 1: a result that wins the race is served as in version 1)", menu)
			assert.JSONEq(t, menutest.MenuJSON, menu.Rec.Body.String(), "menu answered the wrong menu (task 1)")
		})
	})

	t.Run("answers 502, not 504, when the stock service fails before the timeout", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			stock := menutest.NewStock(t, fakestock.Reply{Delay: 300 * time.Millisecond, Drop: true})
			menu := menutest.Start(newTestMenu(stock))

			time.Sleep(300 * time.Millisecond)
			synctest.Wait()
			require.True(t, menu.Answered(), "%v; the stock service hung up after 300ms; want 502 then (task 1: the result wins the race, error or not)", menu)
			assert.Equal(t, http.StatusBadGateway, menu.Rec.Code, "%v; want 502 (task 1: only a timeout is a 504)", menu)
		})
	})
}

// requireTimesOut stops t at once, before it spends real time on sockets,
// unless the menu does in virtual time what the real network will then be
// asked to show: answer 504 at its timeout while the stock service holds
// its answer. A menu that passes pays a few milliseconds. Call it after
// requireNoLeak, outside any synctest bubble.
func requireTimesOut(t *testing.T) {
	t.Helper()
	synctest.Test(t, func(t *testing.T) {
		stock := menutest.NewStock(t, fakestock.Reply{Delay: 10 * time.Second})
		menu := menutest.Start(newTestMenu(stock))

		time.Sleep(testTimeout)
		synctest.Wait()
		require.True(t, menu.Answered(), "checked first in virtual time, the stock service taking 10s: %v; want 504 after %v (task 1: race the call against a timer)", menu, testTimeout)
		require.Equal(t, http.StatusGatewayTimeout, menu.Rec.Code, "checked first in virtual time, the stock service taking 10s: %v; want 504 (task 1)", menu)
	})
}
