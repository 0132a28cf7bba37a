package main

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/icecreamcorp/go-cancellation-workshop/internal/fakestock"
	"github.com/icecreamcorp/go-cancellation-workshop/internal/menutest"
)

// Task 2: when the menu's caller leaves — it hangs up, or its own deadline
// passes — the stock call ends then, and the menu answers 499. (net/http
// cancels r.Context() when its client hangs up; here the test plays that
// client, with a context of its own.)
func TestClientLeaves(t *testing.T) {
	guard(t)
	for _, tc := range []struct {
		name     string
		deadline bool
	}{{"hangs up", false}, {"own deadline", true}} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				stock := menutest.NewStock(t, slow)
				menu := startCaller(t, newTestMenu(stock), 300*time.Millisecond, tc.deadline)
				requireAnswer(t, menu, 300*time.Millisecond, "derive the call's context from r.Context()")
				assertCallerGone(t, menu)
				calls := stock.Calls()
				must(t, len(calls) == 1, "got %v and the stock call still running, want it abandoned (derive from r.Context())", menu)
				check(t, calls[0].Outcome == fakestock.Abandoned, "stock %v, want abandoned", calls[0])
				check(t, calls[0].Took() == 300*time.Millisecond, "stock %v, want it ended when the caller left", calls[0])
			})
		})
	}
}
