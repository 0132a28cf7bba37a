package main

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/icecreamcorp/go-cancellation-workshop/internal/fakestock"
	"github.com/icecreamcorp/go-cancellation-workshop/internal/leakcheck"
	"github.com/icecreamcorp/go-cancellation-workshop/internal/menutest"
)

// menuVars reads the "menu" counters of GET /debug/vars from h.
func menuVars(t testing.TB, h http.Handler) map[string]int {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/debug/vars", nil))
	require.Equal(t, http.StatusOK, rec.Code, "GET /debug/vars answered %d: %s; want 200 (task 5)", rec.Code, menutest.Body(rec))
	var vars struct {
		Menu     map[string]int  `json:"menu"`
		Cmdline  json.RawMessage `json:"cmdline"`
		Memstats json.RawMessage `json:"memstats"`
	}
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &vars), "GET /debug/vars answered %s; want JSON, as expvar serves it (task 5)", menutest.Body(rec))
	assert.NotEmpty(t, vars.Cmdline, "GET /debug/vars has no \"cmdline\"; want the process's expvar variables too, as in step 01 (task 5)")
	assert.NotEmpty(t, vars.Memstats, "GET /debug/vars has no \"memstats\"; want the process's expvar variables too, as in step 01 (task 5)")
	require.NotNil(t, vars.Menu, "GET /debug/vars has no \"menu\" counters: %s (task 5)", menutest.Body(rec))
	return vars.Menu
}

// Task 5: count what is aborted, and why.
func TestCounters(t *testing.T) {
	requireNoLeak(t)
	leakcheck.Check(t)

	t.Run("counts requests, timeouts and clients who left on GET /debug/vars", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			stock := menutest.NewStock(t,
				fakestock.Reply{},                        // 1: answered at once
				fakestock.Reply{Delay: 10 * time.Second}, // 2: our timeout
				fakestock.Reply{Delay: 10 * time.Second}, // 3: the client leaves after 300ms
				fakestock.Reply{Drop: true},              // 4: the stock service fails
				fakestock.Reply{Delay: 10 * time.Second}, // 5: the caller's own deadline of 500ms passes
			)
			h := newTestMenu(stock)
			require.Equal(t, map[string]int{"requests": 0, "aborted_by_timeout": 0, "aborted_by_client": 0, "failed_fast": 0}, menuVars(t, h),
				"a new menu service's counters; want these four, at zero (task 5)")

			menutest.Get(h)
			timedOut := menutest.Start(h)
			time.Sleep(testTimeout)
			synctest.Wait()
			require.True(t, timedOut.Answered(), "%v; want 504 after 1s (task 1)", timedOut)
			ctx, hangUp := context.WithCancel(context.Background())
			left := menutest.StartRequest(h, httptest.NewRequest(http.MethodGet, "/menu", nil).WithContext(ctx))
			time.Sleep(300 * time.Millisecond)
			hangUp()
			synctest.Wait()
			require.True(t, left.Answered(), "the menu's client left after 300ms; %v; want the handler to return then (task 2)", left)
			menutest.Get(h)
			ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
			defer cancel()
			impatient := menutest.StartRequest(h, httptest.NewRequest(http.MethodGet, "/menu", nil).WithContext(ctx))
			time.Sleep(500 * time.Millisecond)
			synctest.Wait()
			require.True(t, impatient.Answered(), "the menu's caller had a deadline of 500ms; %v; want the handler to return then (task 2)", impatient)

			assert.Equal(t, map[string]int{"requests": 5, "aborted_by_timeout": 1, "aborted_by_client": 2, "failed_fast": 0}, menuVars(t, h),
				"after one menu served, one timeout, one client who left, one stock failure (502, which is no abort) and one caller whose own deadline passed (a DeadlineExceeded that is not our timeout) (task 5: count in handleMenu, once per request, by the reason task 4 found — errors.Is(err, errStockTooSlow), never ctx.Err() or errors.Is(err, context.DeadlineExceeded))")
		})
	})

	t.Run("each menu service counts its own requests", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			stock := menutest.NewStock(t, fakestock.Reply{})
			first, second := newTestMenu(stock), newTestMenu(stock)
			menutest.Get(first)
			menutest.Get(first)
			menutest.Get(second)

			assert.Equal(t, 2, menuVars(t, first)["requests"], "GET /menu twice on one service; want its requests counter at 2 (task 5: s.requests.Add(1) for every GET /menu — the counters belong to the service, as in step 01)")
			assert.Equal(t, 1, menuVars(t, second)["requests"], "GET /menu once on another service; want its requests counter at 1 (task 5: each service counts its own)")
		})
	})
}
