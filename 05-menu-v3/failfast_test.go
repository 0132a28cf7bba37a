package main

import (
	"net/http"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/icecreamcorp/go-cancellation-workshop/internal/fakestock"
	"github.com/icecreamcorp/go-cancellation-workshop/internal/menutest"
)

// timeOut serves n GET /menu one after another, each answered 504 after 1s.
func timeOut(t testing.TB, h http.Handler, n int) {
	t.Helper()
	for i := range n {
		menu := menutest.Start(h)
		pass(testTimeout)
		must(t, menu.Answered() && menu.Rec.Code == http.StatusGatewayTimeout, "timeout %d of %d in a row: got %v, want 504 after 1s (fewer than failAfter timeouts in a row open nothing)", i+1, n, menu)
	}
}

// requireFailFast serves one GET /menu and checks it was answered 503 at once,
// without calling the stock service, with Retry-After: retry.
func requireFailFast(t testing.TB, stock *menutest.Stock, h http.Handler, retry int, when string) {
	t.Helper()
	started := stock.Started()
	menu := menutest.Start(h)
	synctest.Wait()
	must(t, menu.Answered() && menu.Rec.Code == http.StatusServiceUnavailable, "%s: got %v, want 503 at once", when, menu)
	check(t, stock.Started() == started, "%s: got a 503 and a stock call, want no call", when)
	got := menu.Rec.Result().Header.Get("Retry-After") // as sent: the headers when the status was written
	if got == "" && menu.Rec.Header().Get("Retry-After") != "" {
		t.Fatalf("%s: got no Retry-After with the 503, want it set before writeError: headers go with the status", when)
	}
	must(t, got == strconv.Itoa(retry), "%s: got Retry-After %q, want %d: the rest of the cool-down, whole seconds rounded up (all of it while the trial is out)", when, got, retry)
	menutest.AssertJSONError(t, menu.Rec, "writeError")
}

// requireCall starts one GET /menu and checks that it reached the stock service.
func requireCall(t testing.TB, stock *menutest.Stock, h http.Handler, when string) *menutest.Pending {
	t.Helper()
	started := stock.Started()
	menu := menutest.Start(h)
	synctest.Wait()
	must(t, stock.Started() == started+1, "%s: got %v and no stock call, want it let through", when, menu)
	return menu
}

// Task 6: fail fast while the stock service keeps timing out.
func TestFailFast(t *testing.T) {
	guard(t)

	bubble(t, "opens after 5", func(t *testing.T) {
		stock := menutest.NewStock(t, slow)
		h := newTestMenu(stock)
		timeOut(t, h, 4)
		requireCall(t, stock, h, "after 4 timeouts")
		pass(testTimeout)
		requireFailFast(t, stock, h, 1, "after 5 timeouts")
		requireFailFast(t, stock, h, 1, "after 5 timeouts")
		checkVars(t, h, map[string]int{"requests": 7, "aborted_by_timeout": 5, "aborted_by_client": 0, "failed_fast": 2}, "5 timeouts and 2 answers 503 (count every request, before the breaker; each 503 in s.failedFast)")
	})

	for _, tc := range []struct {
		name  string
		reply fakestock.Reply
		want  int
	}{{"200 resets", fakestock.Reply{}, http.StatusOK}, {"502 resets", fakestock.Reply{Status: http.StatusInternalServerError}, http.StatusBadGateway}} {
		bubble(t, tc.name, func(t *testing.T) {
			stock := menutest.NewStock(t, slow, slow, slow, slow, tc.reply, slow)
			h := newTestMenu(stock)
			timeOut(t, h, 4)
			must(t, menutest.Get(h).Code == tc.want, "the stock service answered at once")
			timeOut(t, h, 4)
			requireCall(t, stock, h, "after 4 timeouts, an answer in time, 4 timeouts (done(answered): it ends the run)")
		})
	}

	for _, tc := range []struct {
		name     string
		deadline bool
	}{{"caller hangs up", false}, {"caller deadline", true}} {
		bubble(t, tc.name, func(t *testing.T) {
			stock := menutest.NewStock(t, slow)
			h := newTestMenu(stock)
			timeOut(t, h, 4)
			startCaller(t, h, 300*time.Millisecond, tc.deadline)
			pass(300 * time.Millisecond)
			menu := requireCall(t, stock, h, "after 4 timeouts and a caller who left (no timeout: leave done to the defer)")
			pass(testTimeout)
			must(t, menu.Answered() && menu.Rec.Code == http.StatusGatewayTimeout, "got %v, want 504 after 1s", menu)
			requireFailFast(t, stock, h, 1, "after 4 timeouts, a caller who left, a timeout (no answer either: it resets nothing)")
			time.Sleep(time.Second)
			startCaller(t, h, 300*time.Millisecond, tc.deadline)
			pass(300 * time.Millisecond)
			requireCall(t, stock, h, "after the trial's caller left (no verdict: the next request is the trial; defer done)")
			requireFailFast(t, stock, h, 1, "while the new trial is out (no verdict closes nothing)")
		})
	}

	bubble(t, "failAfter 0", func(t *testing.T) {
		stock := menutest.NewStock(t, slow)
		svc := newMenuService(stock.Client(), menutest.StockURL, testTimeout)
		svc.breaker.failAfter = 0
		timeOut(t, svc.handler(), 10)
		requireCall(t, stock, svc.handler(), "after 10 timeouts with failAfter 0 (0 never fails fast)")
	})

	t.Run("at once", func(t *testing.T) {
		// Straight to the breaker: one handler per CPU, released together,
		// round after round. Without a mutex, timeouts reported at the same
		// instant are lost (go test -race says where).
		const rounds, each = 50, 500
		handlers := max(2, runtime.GOMAXPROCS(0))
		for round := range rounds {
			b := newBreaker()
			b.failAfter = handlers * each
			var wg sync.WaitGroup
			var ready atomic.Int32
			for range handlers {
				dones := make([]func(outcome), each)
				for i := range dones {
					dones[i], _ = b.allow()
				}
				wg.Go(func() {
					for ready.Add(1); ready.Load() < int32(handlers); {
						runtime.Gosched()
					}
					for _, done := range dones {
						done(timedOut)
					}
				})
			}
			wg.Wait()
			if _, wait := b.allow(); wait <= 0 {
				t.Errorf("round %d: got it closed after %d timeouts reported at once, want it open (one sync.Mutex, locked in allow and record)", round+1, b.failAfter)
				return
			}
		}
	})
}
