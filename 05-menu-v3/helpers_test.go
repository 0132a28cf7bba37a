package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/icecreamcorp/go-cancellation-workshop/internal/fakestock"
	"github.com/icecreamcorp/go-cancellation-workshop/internal/leakcheck"
	"github.com/icecreamcorp/go-cancellation-workshop/internal/menutest"
)

// slow is a stock service's answer that comes too late: after 10s.
var slow = fakestock.Reply{Delay: 10 * time.Second}

// check reports a failure of t unless ok; must also stops t.
func check(t testing.TB, ok bool, format string, args ...any) bool {
	t.Helper()
	if !ok {
		t.Errorf(format, args...)
	}
	return ok
}

func must(t testing.TB, ok bool, format string, args ...any) {
	t.Helper()
	if !ok {
		t.Fatalf(format, args...)
	}
}

// guard starts a test: it stops at once if the menu leaves a goroutine
// blocked (leak_test.go), and fails if the test leaves one running.
func guard(t *testing.T) {
	t.Helper()
	requireNoLeak(t)
	leakcheck.Check(t)
}

// bubble runs f as subtest name of t, in a synctest bubble.
func bubble(t *testing.T, name string, f func(t *testing.T)) {
	t.Run(name, func(t *testing.T) { synctest.Test(t, f) })
}

// startCaller starts one GET /menu with h whose caller leaves after leave:
// it hangs up, or, if deadline, its own deadline passes. 0 never leaves.
func startCaller(t testing.TB, h http.Handler, leave time.Duration, deadline bool) *menutest.Pending {
	ctx, cancel := context.WithCancel(context.Background())
	switch {
	case leave > 0 && deadline:
		ctx, cancel = context.WithTimeout(context.Background(), leave)
	case leave > 0:
		time.AfterFunc(leave, cancel)
	}
	t.Cleanup(cancel)
	return menutest.StartRequest(h, httptest.NewRequest(http.MethodGet, "/menu", nil).WithContext(ctx))
}

// pass lets d pass in the bubble, then waits for its goroutines to block.
func pass(d time.Duration) {
	time.Sleep(d)
	synctest.Wait()
}

// requireAnswer checks the menu answered after at, not 1ns before.
func requireAnswer(t testing.TB, menu *menutest.Pending, at time.Duration, fix string) {
	t.Helper()
	for _, d := range []time.Duration{at - time.Nanosecond, time.Nanosecond} {
		pass(d)
		must(t, menu.Answered() == (d == time.Nanosecond), "got %v, want an answer after %v (%s)", menu, at, fix)
	}
}

// requireAbandoned checks that the menu's one stock call ended at at,
// abandoned, and that no response body was left open.
func requireAbandoned(t testing.TB, stock *menutest.Stock, menu *menutest.Pending, at time.Duration, fix string) {
	t.Helper()
	calls := stock.Calls()
	must(t, len(calls) == 1, "got %v and the stock call still running, want it abandoned (%s)", menu, fix)
	must(t, calls[0].Outcome == fakestock.Abandoned && calls[0].Took() == at, "stock %v, want abandoned at %v (%s)", calls[0], at, fix)
	must(t, stock.OpenBodies() == 0, "response bodies left open, want none (defer resp.Body.Close())")
}

// assertCallerGone checks the answer to a caller whose context ended first:
// 499, and no word of a stock service too slow.
func assertCallerGone(t testing.TB, menu *menutest.Pending) {
	t.Helper()
	if check(t, menu.Rec.Code == statusClientClosedRequest, "got %v, want 499, not a menu, 502 or 504 (writeError(w, statusClientClosedRequest, err))", menu) {
		menutest.AssertJSONError(t, menu.Rec, "writeError(w, statusClientClosedRequest, err)")
	}
	check(t, !strings.Contains(menu.Rec.Body.String(), errStockTooSlow.Error()), "got %v, want no %q: our deadline had not passed (wrap errStockTooSlow only when our deadline ended the call)", menu, errStockTooSlow)
}

// holdUntilLeft holds every request until its caller leaves — then it sends
// the time on left, once — or until release is closed; then h answers it.
func holdUntilLeft(release <-chan struct{}, left chan<- time.Time, h http.Handler) http.Handler {
	var once sync.Once
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
			once.Do(func() { left <- time.Now() })
		}
		h.ServeHTTP(w, r)
	})
}
