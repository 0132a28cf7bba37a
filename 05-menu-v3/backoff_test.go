package main

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/icecreamcorp/go-cancellation-workshop/internal/fakestock"
	"github.com/icecreamcorp/go-cancellation-workshop/internal/menutest"
)

// coolDown checks, from the instant the breaker opened, a cool-down of d:
// 503 with Retry-After d at its start and 1 at its last nanosecond, then one
// trial let through, which it returns.
func coolDown(t testing.TB, stock *menutest.Stock, h http.Handler, d time.Duration) *menutest.Pending {
	t.Helper()
	requireFailFast(t, stock, h, int(d/time.Second), fmt.Sprintf("at the start of a %v cool-down", d))
	time.Sleep(d - time.Nanosecond)
	requireFailFast(t, stock, h, 1, fmt.Sprintf("1ns before the end of a %v cool-down", d))
	time.Sleep(time.Nanosecond)
	return requireCall(t, stock, h, fmt.Sprintf("at the end of a %v cool-down (let one trial through)", d))
}

// Task 6: each trial that times out doubles the cool-down, up to 30s; a
// trial answered in time closes the breaker.
func TestBackOff(t *testing.T) {
	guard(t)

	bubble(t, "doubles", func(t *testing.T) {
		stock := menutest.NewStock(t, slow)
		h := newTestMenu(stock)
		timeOut(t, h, 5)
		for _, d := range []time.Duration{1, 2, 4, 8, 16, 30, 30} {
			trial := coolDown(t, stock, h, d*time.Second)
			requireFailFast(t, stock, h, int(d), fmt.Sprintf("while the trial of a %vs cool-down is out", d))
			pass(testTimeout)
			must(t, trial.Answered() && trial.Rec.Code == http.StatusGatewayTimeout, "the trial: got %v, want 504 after 1s", trial)
		}
	})

	bubble(t, "closes", func(t *testing.T) {
		// The first trial times out, the second is answered 502 at once.
		stock := menutest.NewStock(t, slow, slow, slow, slow, slow, slow, fakestock.Reply{Status: http.StatusInternalServerError}, slow)
		h := newTestMenu(stock)
		timeOut(t, h, 5)
		coolDown(t, stock, h, time.Second)
		pass(testTimeout)
		trial := coolDown(t, stock, h, 2*time.Second)
		must(t, trial.Answered() && trial.Rec.Code == http.StatusBadGateway, "the trial: got %v, want 502 at once", trial)
		requireCall(t, stock, h, "after a trial answered in time, even 502 (done(answered) closes it)")
		requireCall(t, stock, h, "after a trial answered in time, a second call")
		pass(testTimeout)
		timeOut(t, h, 3)
		coolDown(t, stock, h, time.Second) // the back-off starts again
	})

	// Straight to the breaker: calls let through before it opened end in its
	// cool-down, while its trial is out, and after a trial closed it.
	bubble(t, "late calls", func(t *testing.T) {
		const rule = "a call counts only in the state it began in: bind done to gen"
		b := newBreaker()
		late := make([]func(outcome), 14)
		for i := range late {
			late[i], _ = b.allow()
		}
		for _, done := range late[:5] {
			done(timedOut)
			done(answered)
		}
		_, wait := b.allow()
		must(t, wait == time.Second, "5 calls each told done(timedOut), then done(answered): got wait %v, want 1s (only the first call of done counts)", wait)
		time.Sleep(time.Second)
		trial, _ := b.allow()
		trial(timedOut)
		time.Sleep(500 * time.Millisecond)
		late[5](timedOut)
		late[6](answered)
		_, wait = b.allow()
		check(t, wait == 1500*time.Millisecond, "0.5s into a 2s cool-down, after a late timeout and a late answer: got wait %v, want 1.5s (%s)", wait, rule)

		time.Sleep(1500 * time.Millisecond)
		trial, _ = b.allow()
		late[7](timedOut)
		late[8](answered)
		late[9](noVerdict)
		_, wait = b.allow()
		check(t, wait == 2*time.Second, "while the trial is out, after a late timeout, answer and no verdict: got wait %v, want 2s (%s)", wait, rule)
		trial(timedOut)
		_, wait = b.allow()
		check(t, wait == 4*time.Second, "the second trial timed out: got wait %v, want 4s (%s)", wait, rule)

		time.Sleep(4 * time.Second)
		trial, _ = b.allow()
		trial(answered)
		for _, done := range late[10:] {
			done(timedOut)
		}
		fresh, _ := b.allow()
		fresh(timedOut)
		_, wait = b.allow()
		check(t, wait == 0, "a trial closed it, then 4 late timeouts and 1 new one: got wait %v, want 0, 1 timeout in a row (%s)", wait, rule)
	})
}
