package main

import (
	"testing"
	"time"

	"github.com/icecreamcorp/go-cancellation-workshop/internal/menutest"
)

// Task 2: when the menu's caller leaves — it hangs up, or its own deadline
// passes — the stock call ends then, and the menu answers 499. (The test
// plays net/http, which cancels r.Context() when its client hangs up.)
func TestClientLeaves(t *testing.T) {
	guard(t)
	for _, tc := range []struct {
		name     string
		deadline bool
	}{{"hangs up", false}, {"own deadline", true}} {
		bubble(t, tc.name, func(t *testing.T) {
			stock := menutest.NewStock(t, slow)
			menu := startCaller(t, newTestMenu(stock), 300*time.Millisecond, tc.deadline)
			requireAnswer(t, menu, 300*time.Millisecond, "derive the call's context from r.Context()")
			assertCallerGone(t, menu)
			requireAbandoned(t, stock, menu, 300*time.Millisecond, "derive the call's context from r.Context()")
		})
	}
}
