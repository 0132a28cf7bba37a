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
				requireFailFast(t, stock, h, int(d), fmt.Sprintf("while the trial of the #%d cool-down of %v is out (task 6: refuse the others with Retry-After: the current cool-down, whole, not always the shortest)", i+1, d*time.Second))
				time.Sleep(testTimeout)
				synctest.Wait()
				require.True(t, trial.Answered() && trial.Rec.Code == http.StatusGatewayTimeout, "the trial: %v; want 504 after 1s (task 6)", trial)
			}
		})
	})

	t.Run("calls that started before it opened change nothing, ending in a cool-down, while a trial is out or after it closed", func(t *testing.T) {
		// Straight to the breaker, as every handler calls it. Through the
		// menu, with one timeout for every call, a call let through before
		// the breaker opened always ends before the first trial can; the
		// breaker's rule must not lean on that.
		synctest.Test(t, func(t *testing.T) {
			const rule = "task 6: a call counts only in the state it began in — one that started before the breaker opened changes nothing when it ends, neither the count, nor the cool-down, nor whether it is open"
			b := newBreaker()
			dones := make([]func(outcome), 13)
			for i := range dones {
				var wait time.Duration
				dones[i], wait = allowed(t, &b, fmt.Sprintf("call %d of 13 to a new breaker", i+1))
				require.Zero(t, wait, "call %d of 13 to a new breaker: allow said wait %v; want it let through (task 6)", i+1, wait)
			}
			for _, done := range dones[:5] {
				done(timedOut)
			}
			_, wait := b.allow()
			require.Equal(t, time.Second, wait, "5 of 13 calls let through reported a timeout; allow said wait %v; want 1s: 5 timeouts in a row open the breaker for its first cool-down (task 6)", wait)
			time.Sleep(time.Second)
			trial, wait := allowed(t, &b, "at the end of the first cool-down")
			require.Zero(t, wait, "5 timeouts opened the breaker for 1s; at the end of the cool-down allow said wait %v; want the trial let through (task 6)", wait)
			trial(timedOut)
			_, wait = b.allow()
			require.Equal(t, 2*time.Second, wait, "the trial timed out; allow said wait %v; want 2s: each failed trial doubles the cool-down (task 6)", wait)

			time.Sleep(500 * time.Millisecond)
			dones[5](timedOut)
			dones[6](answered)
			_, wait = b.allow()
			assert.Equal(t, 1500*time.Millisecond, wait,
				"0.5s into the 2s cool-down after a failed trial, two calls let through before the breaker opened ended, one timed out and one answered; allow said wait %v; want 1.5s, the rest of the cool-down: no shorter, no longer, not closed (%s)", wait, rule)

			time.Sleep(1500 * time.Millisecond)
			trial, wait = allowed(t, &b, "at the end of the 2s cool-down")
			require.Zero(t, wait, "at the end of the 2s cool-down allow said wait %v; want the second trial let through (task 6)", wait)
			// The cool-down is over, the trial is out, and the breaker is
			// still open: late calls change nothing now either.
			dones[7](timedOut)
			_, wait = b.allow()
			assert.Equal(t, 2*time.Second, wait,
				"while the second trial was out, after its cool-down of 2s, a call let through before the breaker opened timed out; allow said wait %v; want 2s, the current cool-down, as for every request while a trial is out: the late timeout restarts nothing (%s)", wait, rule)
			dones[8](answered)
			_, wait = b.allow()
			assert.Equal(t, 2*time.Second, wait,
				"while the second trial was out, after its cool-down of 2s, a call let through before the breaker opened was answered; allow said wait %v; want 2s, as for every request while a trial is out: the late answer does not close the breaker (%s)", wait, rule)
			trial(timedOut)
			_, wait = b.allow()
			assert.Equal(t, 4*time.Second, wait, "the second trial timed out, after late calls that started before the breaker opened ended in its cool-down and while it was out; allow said wait %v; want 4s: the back-off doubles from the 2s it had reached, the late calls reset nothing (%s)", wait, rule)

			time.Sleep(4 * time.Second)
			trial, _ = allowed(t, &b, "at the end of the 4s cool-down")
			trial(answered)
			for _, done := range dones[9:] {
				done(timedOut)
			}
			fresh, _ := allowed(t, &b, "after a trial answered in time")
			fresh(timedOut)
			_, wait = b.allow()
			assert.Zero(t, wait, "a trial answered in time closed the breaker; then 4 calls let through before it opened timed out, and 1 new call; allow said wait %v; want the call let through: that is 1 timeout in a row, not 5 (%s)", wait, rule)
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

// allowed calls b.allow, and stops the test — naming the fix — if allow lets
// the call through without a done function to report its outcome with: the
// test would call it, and a nil func panics.
func allowed(t *testing.T, b *breaker, when string) (func(outcome), time.Duration) {
	t.Helper()
	done, wait := b.allow()
	if wait <= 0 && done == nil {
		require.FailNow(t, fmt.Sprintf("%s: allow said wait %v and gave no done function; want a done whenever it lets a call through, so that the call's outcome reaches the breaker (task 6)", when, wait))
	}
	return done, wait
}
