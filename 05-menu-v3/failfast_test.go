package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/icecreamcorp/go-cancellation-workshop/internal/fakestock"
	"github.com/icecreamcorp/go-cancellation-workshop/internal/leakcheck"
	"github.com/icecreamcorp/go-cancellation-workshop/internal/menutest"
)

// slow is a stock service's answer that comes too late: after 10s.
var slow = fakestock.Reply{Delay: 10 * time.Second}

// timeOut serves n GET /menu one after another, each answered 504 after 1s.
// after says what came before them, if it matters.
func timeOut(t testing.TB, h http.Handler, n int, after ...string) {
	t.Helper()
	why := "task 1, then task 6: below failAfter timeouts in a row, every request calls the stock service"
	if len(after) > 0 {
		why = after[0]
	}
	for i := range n {
		menu := menutest.Start(h)
		time.Sleep(testTimeout)
		synctest.Wait()
		require.True(t, menu.Answered() && menu.Rec.Code == http.StatusGatewayTimeout,
			"timeout %d of %d in a row: %v; want 504 after 1s (%s)", i+1, n, menu, why)
	}
}

// requireFailFast serves one GET /menu and checks that it was answered 503 at
// once, without a call to the stock service, with Retry-After: retry seconds
// (any whole number of seconds from 1 up if retry is 0).
func requireFailFast(t testing.TB, stock *menutest.Stock, h http.Handler, retry int, when string) {
	t.Helper()
	started := stock.Started()
	menu := menutest.Start(h)
	synctest.Wait()
	require.True(t, menu.Answered() && menu.Rec.Code == http.StatusServiceUnavailable,
		"%s: %v; want 503 Service Unavailable at once (task 6: fail fast while the stock service keeps timing out)", when, menu)
	assert.Equal(t, started, stock.Started(), "%s: the menu answered 503 and still called the stock service; want no call: failing fast spares it (task 6)", when)
	// What the client receives: the headers as they were when the status
	// was written. A header set after that is never sent.
	got := menu.Rec.Result().Header.Get("Retry-After")
	if got == "" && menu.Rec.Header().Get("Retry-After") != "" {
		require.FailNow(t, "Retry-After set too late", "%s: 503 without Retry-After: it was set after the status was written, and net/http sends the headers with the status — a header set later never reaches the client (task 6: set Retry-After before writeError)", when)
	}
	secs, err := strconv.Atoi(got)
	if retry == 0 {
		require.True(t, err == nil && secs >= 1, "%s: 503 with Retry-After %q; want a whole number of seconds, at least 1: a client told 0 comes straight back (task 6: wholeSeconds)", when, got)
	} else {
		require.Equal(t, strconv.Itoa(retry), got, "%s: 503 with Retry-After %q; want %d: the rest of the cool-down in whole seconds, rounded up — all of it while its trial is out (task 6: cool-downs of 1s, doubling after each failed trial up to 30s, back to 1s once a trial succeeds)", when, got, retry)
	}
	menutest.AssertJSONError(t, menu.Rec, "task 6")
}

// requireCall starts one GET /menu and checks that it reached the stock service.
func requireCall(t testing.TB, stock *menutest.Stock, h http.Handler, when string) *menutest.Pending {
	t.Helper()
	started := stock.Started()
	menu := menutest.Start(h)
	synctest.Wait()
	require.Equal(t, started+1, stock.Started(), "%s: %v; want this request to call the stock service (task 6)", when, menu)
	return menu
}

// Task 6: fail fast while the stock service keeps timing out.
func TestFailFast(t *testing.T) {
	requireNoLeak(t)
	leakcheck.Check(t)

	t.Run("still calls the stock service after 4 timeouts in a row, answers 503 after 5", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			stock := menutest.NewStock(t, slow)
			h := newTestMenu(stock)
			timeOut(t, h, 4)
			requireCall(t, stock, h, "after 4 timeouts in a row")
			time.Sleep(testTimeout)
			synctest.Wait()
			requireFailFast(t, stock, h, 1, "after 5 timeouts in a row, at the start of a 1s cool-down")
		})
	})

	t.Run("counts timeouts in a row: an answer in time starts again", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			stock := menutest.NewStock(t, slow, slow, slow, slow, fakestock.Reply{}, slow)
			h := newTestMenu(stock)
			timeOut(t, h, 4)
			require.Equal(t, http.StatusOK, menutest.Get(h).Code, "the stock service answered at once; want 200")
			timeOut(t, h, 4, "after 4 timeouts and a 200: task 6, an answer in time ends the run of timeouts — done(answered)")
			requireCall(t, stock, h, "after 4 timeouts, an answer in time, and 4 timeouts")
		})
	})

	t.Run("counts timeouts in a row: a 502 in time starts again too", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			stock := menutest.NewStock(t, slow, slow, slow, slow, fakestock.Reply{Status: http.StatusInternalServerError}, slow)
			h := newTestMenu(stock)
			timeOut(t, h, 4)
			require.Equal(t, http.StatusBadGateway, menutest.Get(h).Code, "the stock service answered 500 at once; want 502 (step 02)")
			timeOut(t, h, 4, "after 4 timeouts and a 502 in time: task 6, the stock service answered, badly but in time, and that ends the run of timeouts — done(answered) on the 502 path too")
			requireCall(t, stock, h, "after 4 timeouts, a 502 in time, and 4 timeouts: the stock service answered, badly but in time — that ends the run of timeouts (task 6: done(answered) on the 502 path too)")
		})
	})

	t.Run("a caller's own deadline is not a timeout", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			stock := menutest.NewStock(t, slow)
			h := newTestMenu(stock)
			timeOut(t, h, 4)
			ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
			defer cancel()
			menutest.StartRequest(h, httptest.NewRequest(http.MethodGet, "/menu", nil).WithContext(ctx))
			time.Sleep(500 * time.Millisecond)
			synctest.Wait()
			requireCall(t, stock, h, "after 4 timeouts and a caller whose own deadline of 500ms passed: its DeadlineExceeded is not our timeout, yet the breaker counted it as one (task 6: done(timedOut) only for our own timeout, never because a context ended; if the handler gives it on errors.Is(err, errStockTooSlow), see task 4 first: that label must go only to our timeout — context.WithTimeoutCause, then context.Cause)")
		})
	})

	t.Run("a client who leaves is not a timeout", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			stock := menutest.NewStock(t, slow)
			h := newTestMenu(stock)
			timeOut(t, h, 4)
			ctx, hangUp := context.WithCancel(context.Background())
			menutest.StartRequest(h, httptest.NewRequest(http.MethodGet, "/menu", nil).WithContext(ctx))
			time.Sleep(300 * time.Millisecond)
			hangUp()
			synctest.Wait()
			menu := requireCall(t, stock, h, "after 4 timeouts and a client who left")
			time.Sleep(testTimeout)
			synctest.Wait()
			require.True(t, menu.Answered() && menu.Rec.Code == http.StatusGatewayTimeout, "%v; want 504 after 1s (task 1)", menu)
			requireFailFast(t, stock, h, 1, "after 4 timeouts, a client who left, and a 5th timeout: the client who left said nothing of the stock service, "+
				"so it does not start the count of timeouts in a row again (task 6: only done(answered) resets it; leave done(noVerdict) to the defer)")
		})
	})

	t.Run("lets one trial through when the cool-down is over, and only one", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			stock := menutest.NewStock(t, slow)
			h := newTestMenu(stock)
			timeOut(t, h, 5)
			time.Sleep(time.Second - time.Nanosecond)
			requireFailFast(t, stock, h, 1, "1ns before the end of the 1s cool-down")
			time.Sleep(time.Nanosecond)
			requireCall(t, stock, h, "at the end of the 1s cool-down: a back-off that never lets a trial through fails fast forever")
			requireFailFast(t, stock, h, 0, "while the trial request is out")
		})
	})

	t.Run("while open, only the trial decides: calls that started before it opened change nothing", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			// 5 calls time out at 1s and open the breaker. Two more started
			// before it opened: one at 0.3s times out at 1.3s, in the
			// cool-down; one at 0.5s is answered in time at 1.4s.
			stock := menutest.NewStock(t, slow, slow, slow, slow, slow, slow, fakestock.Reply{Delay: 900 * time.Millisecond}, slow)
			h := newTestMenu(stock)
			for range 5 {
				menutest.Start(h)
			}
			time.Sleep(300 * time.Millisecond)
			requireCall(t, stock, h, "0.3s after 5 calls that will time out, before the breaker opens")
			time.Sleep(200 * time.Millisecond)
			late := requireCall(t, stock, h, "0.5s after 5 calls that will time out, before the breaker opens")
			time.Sleep(500 * time.Millisecond)
			synctest.Wait()
			requireFailFast(t, stock, h, 1, "after 5 timeouts at once, at the start of a 1s cool-down")

			time.Sleep(400 * time.Millisecond)
			synctest.Wait()
			require.True(t, late.Answered() && late.Rec.Code == http.StatusOK,
				"a call started 0.5s before the breaker opened, the stock service answering it 900ms later: %v; want 200 (task 1)", late)
			const rule = "task 6: a call counts only in the state it began in — one that started before the breaker opened changes nothing when it ends, neither the count, nor the cool-down, nor whether it is open"
			requireFailFast(t, stock, h, 1, "0.4s into the 1s cool-down, just after a call that started before the breaker opened was answered in time: the breaker must still fail fast, for the 0.6s left ("+rule+")")

			time.Sleep(600*time.Millisecond - time.Nanosecond)
			requireFailFast(t, stock, h, 1, "1ns before the end of the 1s cool-down ("+rule+")")
			time.Sleep(time.Nanosecond)
			requireCall(t, stock, h, "at the end of the 1s cool-down, though a call that started before the breaker opened timed out in the middle of it: the cool-down still ends when it was set to ("+rule+")")
		})
	})

	t.Run("a trial answered 502 closes it: the stock service answered in time", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			stock := menutest.NewStock(t, slow, slow, slow, slow, slow, fakestock.Reply{Status: http.StatusInternalServerError}, slow)
			h := newTestMenu(stock)
			timeOut(t, h, 5)
			time.Sleep(time.Second)
			trial := menutest.Start(h)
			synctest.Wait()
			require.True(t, trial.Answered() && trial.Rec.Code == http.StatusBadGateway, "the trial, the stock service answering 500 at once: %v; want 502 (step 02)", trial)
			const when = "after a trial answered 502: the stock service answered in time, so the breaker is closed and lets every request through (task 6: tell the breaker done(answered) on the 502 path too, and defer done so that no path leaves the trial out for good)"
			requireCall(t, stock, h, when)
			requireCall(t, stock, h, when+", two at once")
		})
	})

	t.Run("when the trial's client leaves, the next request is the trial", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			stock := menutest.NewStock(t, slow)
			h := newTestMenu(stock)
			timeOut(t, h, 5)
			time.Sleep(time.Second)
			ctx, hangUp := context.WithCancel(context.Background())
			menutest.StartRequest(h, httptest.NewRequest(http.MethodGet, "/menu", nil).WithContext(ctx))
			time.Sleep(300 * time.Millisecond)
			hangUp()
			synctest.Wait()
			requireCall(t, stock, h, "after the trial's client left: the trial gave no verdict, so the next request must be let through, or none ever will (task 6: defer done(noVerdict), and let allow give out a new trial)")
			requireFailFast(t, stock, h, 0, "while the new trial is out: a trial whose client left proved nothing, the breaker is still open (task 6: no verdict is not an answer in time — leave done(noVerdict) to the defer)")
		})
	})

	t.Run("never fails fast when failAfter is 0", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			stock := menutest.NewStock(t, slow)
			svc := newMenuService(stock.Client(), menutest.StockURL, testTimeout)
			svc.breaker.failAfter = 0
			const never = "task 6: failAfter 0 means never fail fast, the -fail-after 0 of the load lab — open the breaker only when failAfter is positive"
			timeOut(t, svc.handler(), 10, never)
			requireCall(t, stock, svc.handler(), "after 10 timeouts with failAfter 0 ("+never+")")
		})
	})

	t.Run("counts each 503 as failed fast", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			stock := menutest.NewStock(t, slow)
			h := newTestMenu(stock)
			timeOut(t, h, 5)
			requireFailFast(t, stock, h, 1, "after 5 timeouts")
			requireFailFast(t, stock, h, 1, "after 5 timeouts")
			assert.Equal(t, map[string]int{"requests": 7, "aborted_by_timeout": 5, "aborted_by_client": 0, "failed_fast": 2}, menuVars(t, h),
				"after 5 timeouts and 2 answers 503: want requests to count all 7 (task 5: s.requests.Add(1) first thing in handleMenu, before the breaker) and failed_fast the 2 (task 6: count each 503 in s.failedFast)")
		})
	})

	t.Run("counts every timeout when many handlers report at once", func(t *testing.T) {
		// Straight to the breaker, as every handler calls it, with nothing
		// else in between: one handler per CPU, released together, round
		// after round. Without a mutex two of them add 1 to the same count
		// at the same instant, and one of the additions is lost.
		const rounds, each = 50, 500
		handlers := max(2, runtime.GOMAXPROCS(0))
		for round := range rounds {
			b := newBreaker()
			b.failAfter = handlers * each
			var wg sync.WaitGroup
			var ready atomic.Int32
			refused := 0
			for range handlers {
				dones := make([]func(outcome), each)
				for i := range dones {
					var wait time.Duration
					if dones[i], wait = allowed(t, &b, "a new breaker"); wait > 0 {
						refused++
					}
				}
				if refused > 0 {
					break // no handler may call a done it was not given
				}
				wg.Go(func() {
					// Start together: wait until every handler is running.
					for ready.Add(1); ready.Load() < int32(handlers); {
						runtime.Gosched()
					}
					for _, done := range dones {
						done(timedOut)
					}
				})
			}
			wg.Wait()
			require.Zero(t, refused, "the breaker refused %d calls before any timeout; want none (task 6)", refused)
			if _, wait := b.allow(); wait <= 0 {
				assert.Fail(t, "the breaker did not open",
					"round %d: %d handlers each reported %d timeouts at once, %d in all, with failAfter %d; the breaker still lets requests through: want it open (task 6: count the timeouts in a row, and guard all the breaker's state with one sync.Mutex, locked in allow and in record — without it, timeouts reported at the same instant are lost, and go test -race shows where two handlers touch the same field)",
					round+1, handlers, each, handlers*each, b.failAfter)
				return
			}
		}
	})

	t.Run("a hundred timeouts at once open it, safely", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			stock := menutest.NewStock(t, slow)
			h := newTestMenu(stock)
			for range 100 {
				menutest.Start(h)
			}
			time.Sleep(testTimeout)
			synctest.Wait()
			requireFailFast(t, stock, h, 1, "after 100 timeouts at once (task 6: a mutex guards the breaker's state)")
		})
	})
}
