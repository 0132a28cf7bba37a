package main

import (
	"fmt"
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/icecreamcorp/go-cancellation-workshop/internal/fakestock"
	"github.com/icecreamcorp/go-cancellation-workshop/internal/leakcheck"
	"github.com/icecreamcorp/go-cancellation-workshop/internal/menutest"
)

// coolDown checks, from the instant the breaker opened, a cool-down of d:
// 503 with Retry-After d at its start, 503 with Retry-After 1 (rounded up,
// never 0) at its last nanosecond, and one trial let through at its end,
// which it returns.
func coolDown(t testing.TB, stock *menutest.Stock, h http.Handler, d time.Duration, which string) *menutest.Pending {
	t.Helper()
	requireFailFast(t, stock, h, int(d/time.Second), fmt.Sprintf("at the start of the %s cool-down of %v", which, d))
	time.Sleep(d - time.Nanosecond)
	requireFailFast(t, stock, h, 1, fmt.Sprintf("1ns before the end of the %s cool-down of %v", which, d))
	time.Sleep(time.Nanosecond)
	return requireCall(t, stock, h, fmt.Sprintf("at the end of the %s cool-down of %v: let one trial through", which, d))
}

// Task 6: the cool-down grows while the trials keep timing out, and no further
// than 30s; a trial answered in time closes the breaker.
func TestBackOff(t *testing.T) {
	requireNoLeak(t)
	leakcheck.Check(t)

	t.Run("cools down for 1s, 2s, 4s, 8s, 16s, then 30s and 30s while the trials time out", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			stock := menutest.NewStock(t, slow)
			h := newTestMenu(stock)
			timeOut(t, h, 5)
			for i, d := range []time.Duration{1, 2, 4, 8, 16, 30, 30} {
				trial := coolDown(t, stock, h, d*time.Second, fmt.Sprintf("#%d", i+1))
				time.Sleep(testTimeout)
				synctest.Wait()
				require.True(t, trial.Answered() && trial.Rec.Code == http.StatusGatewayTimeout, "the trial: %v; want 504 after 1s (task 6)", trial)
			}
		})
	})

	t.Run("a trial answered in time closes it, and the next cool-down is 1s again", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			stock := menutest.NewStock(t, slow, slow, slow, slow, slow, slow, fakestock.Reply{}, slow)
			h := newTestMenu(stock)
			timeOut(t, h, 5)
			trial := coolDown(t, stock, h, time.Second, "first")
			time.Sleep(testTimeout)
			synctest.Wait()
			require.True(t, trial.Answered(), "the first trial: %v; want 504 after 1s (task 6)", trial)
			trial = coolDown(t, stock, h, 2*time.Second, "second")
			require.True(t, trial.Answered() && trial.Rec.Code == http.StatusOK, "the second trial: %v; the stock service answered at once; want 200 (task 6)", trial)

			requireCall(t, stock, h, "after a trial answered in time: the breaker is closed")
			time.Sleep(testTimeout)
			synctest.Wait()
			timeOut(t, h, 4)
			coolDown(t, stock, h, time.Second, "first (after the breaker closed: the back-off starts again)")
		})
	})
}
