package main

import (
	"encoding/json"
	"maps"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/icecreamcorp/go-cancellation-workshop/internal/fakestock"
	"github.com/icecreamcorp/go-cancellation-workshop/internal/menutest"
)

// menuVars reads the "menu" counters of GET /debug/vars from h.
func menuVars(t testing.TB, h http.Handler) map[string]int {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/debug/vars", nil))
	var vars struct {
		Menu              map[string]int
		Cmdline, Memstats json.RawMessage
	}
	must(t, json.Unmarshal(rec.Body.Bytes(), &vars) == nil, "GET /debug/vars: got %d %s, want JSON", rec.Code, menutest.Body(rec))
	must(t, vars.Menu != nil && vars.Cmdline != nil && vars.Memstats != nil, "GET /debug/vars: got %s, want menu, cmdline and memstats", menutest.Body(rec))
	return vars.Menu
}

// checkVars checks the "menu" counters of GET /debug/vars from h.
func checkVars(t testing.TB, h http.Handler, want map[string]int, after string) {
	t.Helper()
	if got := menuVars(t, h); !maps.Equal(got, want) {
		t.Errorf("GET /debug/vars after %s: got %v, want %v", after, got, want)
	}
}

// Task 5: count every request, and each call aborted, by its reason.
func TestCounters(t *testing.T) {
	guard(t)

	bubble(t, "by reason", func(t *testing.T) {
		stock := menutest.NewStock(t,
			fakestock.Reply{},           // answered at once
			slow,                        // our timeout
			slow,                        // the caller hangs up after 300ms
			fakestock.Reply{Drop: true}, // the stock service fails: 502, no abort
			slow,                        // the caller's own deadline passes after 500ms
		)
		h, other := newTestMenu(stock), newTestMenu(stock)
		zero := map[string]int{"requests": 0, "aborted_by_timeout": 0, "aborted_by_client": 0, "failed_fast": 0}
		checkVars(t, h, zero, "nothing")
		menutest.Get(h)
		menutest.Start(h)
		time.Sleep(testTimeout)
		startCaller(t, h, 300*time.Millisecond, false)
		pass(300 * time.Millisecond)
		menutest.Get(h)
		startCaller(t, h, 500*time.Millisecond, true)
		pass(500 * time.Millisecond)
		checkVars(t, h, map[string]int{"requests": 5, "aborted_by_timeout": 1, "aborted_by_client": 2, "failed_fast": 0}, "a menu, a timeout, a hang-up, a 502 and a caller's deadline (count each request in handleMenu, by the reason task 4 found)")
		checkVars(t, other, zero, "5 requests to another service (each service counts its own)")
	})
}
