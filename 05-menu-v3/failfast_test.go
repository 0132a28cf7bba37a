package main

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/icecreamcorp/go-cancellation-workshop/internal/fakestock"
	"github.com/icecreamcorp/go-cancellation-workshop/internal/menutest"
)

// checkVars checks the "menu" counters of GET /debug/vars from h, served
// beside the process's cmdline and memstats.
func checkVars(t testing.TB, h http.Handler, want map[string]int, after string) {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/debug/vars", nil))
	var vars struct {
		Menu              map[string]int
		Cmdline, Memstats json.RawMessage
	}
	must(t, json.Unmarshal(rec.Body.Bytes(), &vars) == nil && vars.Cmdline != nil && vars.Memstats != nil, "GET /debug/vars: got %d %s, want JSON with menu, cmdline and memstats", rec.Code, menutest.Body(rec))
	var diff []string // only the counters that are wrong: both whole maps make too long a line
	for _, k := range slices.Sorted(maps.Keys(want)) {
		if got, ok := vars.Menu[k]; !ok || got != want[k] {
			diff = append(diff, fmt.Sprintf("%s %d, want %d", k, got, want[k]))
		}
	}
	for k := range vars.Menu {
		if _, ok := want[k]; !ok {
			diff = append(diff, fmt.Sprintf("%s: no such counter", k))
		}
	}
	check(t, len(diff) == 0, "GET /debug/vars after %s: %s", after, strings.Join(diff, "; "))
}

// timeOut serves n GET /menu one after another, each answered 504 after 1s.
func timeOut(t testing.TB, h http.Handler, n int) {
	t.Helper()
	for i := range n {
		menu := menutest.Start(h)
		pass(testTimeout)
		must(t, menu.Answered() && menu.Rec.Code == http.StatusGatewayTimeout, "timeout %d of %d in a row: got %v, want 504 after 1s (fewer than failAfter timeouts in a row open nothing)", i+1, n, menu)
	}
}

// next serves one more GET /menu and checks that it reached the stock service
// (retry 0), or was answered 503 at once, with no call, Retry-After: retry.
func next(t testing.TB, stock *menutest.Stock, h http.Handler, retry int, when string) *menutest.Pending {
	t.Helper()
	started := stock.Started()
	menu := menutest.Start(h)
	synctest.Wait()
	if retry == 0 {
		must(t, stock.Started() == started+1, "%s: got %v and no stock call, want it let through", when, menu)
		return menu
	}
	must(t, menu.Answered() || stock.Started() == started, "%s: got the call let through to the stock service, want it refused: 503 at once", when)
	must(t, menu.Answered() && menu.Rec.Code == http.StatusServiceUnavailable, "%s: got %v, want 503 at once", when, menu)
	check(t, stock.Started() == started, "%s: got a 503 and a stock call, want no call", when)
	got := menu.Rec.Result().Header.Get("Retry-After") // as sent: the headers when the status was written
	must(t, got != "" || menu.Rec.Header().Get("Retry-After") == "", "%s: got no Retry-After with the 503, want it set before writeError: headers go with the status", when)
	must(t, got == strconv.Itoa(retry), "%s: got Retry-After %q, want %d: the rest of the cool-down, whole seconds rounded up (all of it while the trial is out)", when, got, retry)
	menutest.AssertJSONError(t, menu.Rec, "writeError")
	return menu
}

// coolDown checks, from the instant the breaker opened, a cool-down of d:
// 503 with Retry-After d at its start and 1 at its last nanosecond, then one
// trial let through, which it returns.
func coolDown(t testing.TB, stock *menutest.Stock, h http.Handler, d time.Duration) *menutest.Pending {
	t.Helper()
	next(t, stock, h, int(d/time.Second), fmt.Sprintf("at the start of a %v cool-down", d))
	time.Sleep(d - time.Nanosecond)
	next(t, stock, h, 1, fmt.Sprintf("1ns before the end of a %v cool-down", d))
	time.Sleep(time.Nanosecond)
	return next(t, stock, h, 0, fmt.Sprintf("at the end of a %v cool-down (let one trial through)", d))
}

// Task 6: fail fast while the stock service keeps timing out.
func TestFailFast(t *testing.T) {
	guard(t)

	for _, tc := range []struct {
		name  string
		reply fakestock.Reply
		want  int
	}{
		{name: "200 resets", reply: fakestock.Reply{}, want: http.StatusOK},
		{name: "502 resets", reply: fakestock.Reply{Status: http.StatusInternalServerError}, want: http.StatusBadGateway},
	} {
		bubble(t, tc.name, func(t *testing.T) {
			stock := menutest.NewStock(t, slow, slow, slow, slow, tc.reply, slow)
			h := newTestMenu(stock)
			timeOut(t, h, 4)
			must(t, menutest.Get(h).Code == tc.want, "the stock service answered at once")
			timeOut(t, h, 4)
			next(t, stock, h, 0, "after 4 timeouts, an answer in time, 4 timeouts (done(answered): it ends the run)")
		})
	}

	for _, tc := range callerLeaves {
		bubble(t, tc.name, func(t *testing.T) {
			stock := menutest.NewStock(t, slow)
			h := newTestMenu(stock)
			timeOut(t, h, 4)
			startCaller(t, h, tc.leave, tc.deadline)
			pass(tc.leave)
			menu := next(t, stock, h, 0, "after 4 timeouts and a caller who left (no timeout: leave done to the defer)")
			pass(testTimeout)
			must(t, menu.Answered() && menu.Rec.Code == http.StatusGatewayTimeout, "got %v, want 504 after 1s", menu)
			next(t, stock, h, 1, "after 4 timeouts, a caller who left, a timeout (no answer either: it resets nothing)")
			time.Sleep(time.Second)
			startCaller(t, h, tc.leave, tc.deadline)
			pass(tc.leave)
			next(t, stock, h, 0, "after the trial's caller left (no verdict: the next request is the trial; defer done)")
			next(t, stock, h, 1, "while the new trial is out (no verdict closes nothing)")
			checkVars(t, h, map[string]int{"requests": 10, "aborted_by_timeout": 5, "aborted_by_client": 2, "failed_fast": 2}, "10 requests: 5 timeouts, 2 callers who left, 2 answers 503 (count every request, before the breaker; each 503 in s.failedFast)")
		})
	}

	bubble(t, "failAfter 0", func(t *testing.T) {
		stock := menutest.NewStock(t, slow)
		svc := newMenuService(stock.Client(), menutest.StockURL, testTimeout)
		svc.breaker.failAfter = 0
		timeOut(t, svc.handler(), 10)
		next(t, stock, svc.handler(), 0, "after 10 timeouts with failAfter 0 (0 never fails fast)")
	})

	t.Run("at once", func(t *testing.T) {
		// Straight to the breaker, from one goroutine per CPU released together,
		// round after round: without a mutex, timeouts reported at the same
		// instant are lost (go test -race says where).
		n := max(2, runtime.GOMAXPROCS(0))
		for round := range 50 {
			b := newBreaker()
			b.failAfter = n * 500
			var wg sync.WaitGroup
			var ready atomic.Int32
			for range n {
				dones := make([]func(outcome), 500)
				for i := range dones {
					dones[i], _ = b.allow()
				}
				wg.Go(func() {
					for ready.Add(1); ready.Load() < int32(n); {
						runtime.Gosched()
					}
					for _, done := range dones {
						done(timedOut)
					}
				})
			}
			wg.Wait()
			_, wait := b.allow()
			must(t, wait > 0, "round %d: got it closed after %d timeouts reported at once, want it open (one sync.Mutex, locked in allow and record)", round+1, b.failAfter)
		}
	})
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
			next(t, stock, h, int(d), fmt.Sprintf("while the trial of a %v cool-down is out", d*time.Second))
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
		next(t, stock, h, 0, "after a trial answered in time, even 502 (done(answered) closes it)")
		next(t, stock, h, 0, "after a trial answered in time, a second call")
		pass(testTimeout)
		timeOut(t, h, 3)
		coolDown(t, stock, h, time.Second) // the back-off starts again
	})

	// Straight to the breaker, set as -fail-after 4 -cool-down 2s would with a
	// 5s cap: calls let through before it opened end in its cool-down, while
	// its trial is out, and after a trial closed it.
	bubble(t, "late calls", func(t *testing.T) {
		const rule = "a call counts only in the state it began in: bind done to gen"
		b := breaker{failAfter: 4, minCoolDown: 2 * time.Second, maxCoolDown: 5 * time.Second}
		late := make([]func(outcome), 13)
		for i := range late {
			late[i], _ = b.allow()
		}
		for _, done := range late[:4] {
			done(timedOut)
			done(answered)
		}
		_, wait := b.allow()
		must(t, wait == 2*time.Second, "failAfter 4, minCoolDown 2s, 4 calls told done(timedOut), then done(answered): got wait %v, want 2s (only done's first call counts; use b.failAfter, b.minCoolDown)", wait)
		time.Sleep(2 * time.Second)
		trial, _ := b.allow()
		trial(timedOut)
		time.Sleep(500 * time.Millisecond)
		late[4](timedOut)
		late[5](answered)
		_, wait = b.allow()
		check(t, wait == 3500*time.Millisecond, "0.5s into a 4s cool-down, after a late timeout and a late answer: got wait %v, want 3.5s (%s)", wait, rule)
		time.Sleep(3500 * time.Millisecond)
		trials := make(chan func(outcome), 3) // 3 requests at once: one is the trial
		var wg sync.WaitGroup
		for range 3 {
			wg.Go(func() {
				if done, wait := b.allow(); wait == 0 {
					trials <- done
				}
			})
		}
		wg.Wait()
		must(t, len(trials) == 1, "3 requests at once at the end of a cool-down: got %d trials, want 1 (lock b.mu in allow too: is a trial out? then it is mine)", len(trials))
		trial = <-trials
		late[6](timedOut)
		late[7](answered)
		late[8](noVerdict)
		_, wait = b.allow()
		check(t, wait == 4*time.Second, "while the trial is out, after a late timeout, answer and no verdict: got wait %v, want 4s (%s)", wait, rule)
		trial(timedOut)
		_, wait = b.allow()
		check(t, wait == 5*time.Second, "the second trial timed out, maxCoolDown 5s: got wait %v, want 5s (double the cool-down, up to b.maxCoolDown)", wait)
		time.Sleep(5 * time.Second)
		trial, _ = b.allow()
		trial(answered)
		for _, done := range late[9:] {
			done(timedOut)
		}
		fresh, _ := b.allow()
		fresh(timedOut)
		_, wait = b.allow()
		check(t, wait == 0, "a trial closed it, then 4 late timeouts and 1 new one: got wait %v, want 0, 1 timeout in a row (%s)", wait, rule)
	})
}
