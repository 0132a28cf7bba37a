package main

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/icecreamcorp/go-cancellation-workshop/internal/fakestock"
	"github.com/icecreamcorp/go-cancellation-workshop/internal/leakcheck"
	"github.com/icecreamcorp/go-cancellation-workshop/internal/menutest"
	"github.com/icecreamcorp/go-cancellation-workshop/internal/runtest"
)

// The server's shape in main.go is given complete. This test runs it as
// `go run ./05-menu-v3` would, flags and all, against a fake stock service
// on a real socket: the whole chain, client → menu → stock, over TCP.
func TestRun(t *testing.T) {
	t.Run("serves GET /menu, cancels the stock request at -timeout, counts it, then shuts down gracefully", func(t *testing.T) {
		requireNoLeak(t)
		leakcheck.Check(t)
		requireCancelsAtTimeout(t) // milliseconds; a menu that would fail below fails here, at once
		// The first stock request is answered at once; the second would take
		// 400ms, and the fake records whether its caller left first. 200ms is
		// a long time for a loopback round trip, even on a busy machine, and
		// the menu's 200ms started before the request arrived: a cancel has
		// 200ms to spare.
		fake := fakestock.New(fakestock.Reply{}, fakestock.Reply{Delay: 400 * time.Millisecond})
		stockURL, _ := fakestock.Loopback(t, fake)
		srv := runtest.Start(t, run, "-stock-url", stockURL, "-timeout", "200ms")

		resp, body := srv.Get(t, "/menu")
		if assert.Equal(t, http.StatusOK, resp.StatusCode, "GET /menu from the running service answered %d: %s; want 200", resp.StatusCode, body) {
			assert.JSONEq(t, menutest.MenuJSON, body, "GET /menu from the running service")
		}
		resp, body = srv.Get(t, "/menu")
		assert.Equal(t, http.StatusGatewayTimeout, resp.StatusCode, "GET /menu, the stock service taking 400ms and -timeout 200ms, answered %d: %s; want 504 (task 1)", resp.StatusCode, body)
		calls := fake.Await(t, 2, 5*time.Second)
		assert.Equal(t, fakestock.Abandoned, calls[1].Outcome, "the slow stock request: %v; want abandoned once the menu gave up (task 1)", calls[1])

		_, vars := srv.Get(t, "/debug/vars")
		var counters struct {
			Menu map[string]int64 `json:"menu"`
		}
		require.NoError(t, json.Unmarshal([]byte(vars), &counters), "GET /debug/vars answered %s; want JSON", vars)
		assert.Equal(t, int64(1), counters.Menu["aborted_by_timeout"], "GET /debug/vars: %v; want aborted_by_timeout 1 (task 5)", counters.Menu)
		assert.NoError(t, srv.Stop(), "run's result after its context was cancelled, as Ctrl-C does; want nil: http.ErrServerClosed means a graceful shutdown")
	})

	t.Run("with -h2c, calls the stock service over HTTP/2 and cancels a call without losing the connection", func(t *testing.T) {
		requireNoLeak(t)
		leakcheck.Check(t)
		requireCancelsAtTimeout(t) // milliseconds; a menu that would fail below fails here, at once
		// Every stock request would take 300ms; the menu waits 50ms for each.
		// 3 timeouts in a row: fewer than -fail-after's 5, so the breaker of
		// task 6 stays out of it, whether or not it honours -fail-after 0.
		fake := fakestock.New(fakestock.Reply{Delay: 300 * time.Millisecond})
		var protos sync.Map // the protocols the stock service was asked in
		stock := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			protos.Store(r.Proto, true)
			fake.ServeHTTP(w, r)
		}))
		var conns atomic.Int64
		stock.Config.ConnState = func(_ net.Conn, state http.ConnState) {
			if state == http.StateNew {
				conns.Add(1)
			}
		}
		stock.Config.Protocols = new(http.Protocols)
		stock.Config.Protocols.SetHTTP1(true)
		stock.Config.Protocols.SetUnencryptedHTTP2(true)
		stock.Start()
		t.Cleanup(stock.Close)
		srv := runtest.Start(t, run, "-stock-url", stock.URL+"/stock", "-timeout", "50ms", "-h2c")

		for i := range 3 {
			resp, body := srv.Get(t, "/menu")
			task := "task 1"
			if resp.StatusCode == http.StatusServiceUnavailable {
				task = "task 6: fewer than failAfter timeouts in a row never open the breaker"
			}
			require.Equal(t, http.StatusGatewayTimeout, resp.StatusCode, "GET /menu #%d, the stock service taking 300ms and -timeout 50ms, answered %d: %s; want 504 (%s)", i+1, resp.StatusCode, body, task)
		}
		for _, call := range fake.Await(t, 3, 5*time.Second) {
			assert.Equal(t, fakestock.Abandoned, call.Outcome, "stock %v; want abandoned once the menu gave up: over HTTP/2 a cancel resets the stream (task 1)", call)
		}
		_, h2 := protos.Load("HTTP/2.0")
		_, h1 := protos.Load("HTTP/1.1")
		assert.True(t, h2 && !h1, "the stock service was asked over HTTP/2: %v, over HTTP/1.1: %v; want HTTP/2 only with -h2c", h2, h1)
		assert.Equal(t, int64(1), conns.Load(), "connections the stock service accepted for 3 cancelled calls over h2c; want 1: a cancel is a RST_STREAM frame, the connection lives on (HTTP/1.1 would need 3)")
		assert.NoError(t, srv.Stop(), "run -h2c's result after its context was cancelled; want nil after a graceful shutdown")
	})

	t.Run("refuses a negative -fail-after", func(t *testing.T) {
		err := run(t.Context(), []string{"-fail-after", "-1"}, io.Discard)
		assert.ErrorContains(t, err, "-fail-after", "run -fail-after -1; want an error that names the flag")
	})

	t.Run("refuses a -cool-down that is not positive", func(t *testing.T) {
		err := run(t.Context(), []string{"-cool-down", "0s"}, io.Discard)
		assert.ErrorContains(t, err, "-cool-down", "run -cool-down 0s; want an error that names the flag")
	})

	t.Run("listens on loopback by default", func(t *testing.T) {
		var usage strings.Builder
		run(t.Context(), []string{"-h"}, &usage)
		_, addr, _ := strings.Cut(usage.String(), `(default "`) // -addr comes first
		addr, _, _ = strings.Cut(addr, `"`)
		assert.Equal(t, "localhost:3000", addr, "run -h: the default of -addr; want loopback (-addr :3000 listens on every interface)")
	})

	t.Run("closes a keep-alive connection left idle", func(t *testing.T) {
		leakcheck.Check(t)
		defer func(d time.Duration) { idleTimeout = d }(idleTimeout)
		idleTimeout = 50 * time.Millisecond
		srv := runtest.Start(t, run)
		assert.NoError(t, srv.IdleConn(t, "/", time.Second), "want it closed once idleTimeout (50ms here) has passed: set http.Server.IdleTimeout")
	})

	t.Run("cuts a request that outlives the grace", func(t *testing.T) {
		leakcheck.Check(t)
		err := runtest.OutliveGrace(t, serve)
		assert.ErrorIs(t, err, context.DeadlineExceeded, "serve's result after a request outlived the grace; want an error that says so: the shutdown was not clean, main exits 1")
	})
}

// The menu calls the stock service it was given, and only it: a redirect is
// a non-200 answer. And it reads no more of the stock service's headers than
// they need.
func TestStockClient(t *testing.T) {
	leakcheck.Check(t)
	elsewhere := fakestock.New()
	elsewhereURL, _ := fakestock.Loopback(t, elsewhere)
	for name, stock := range map[string]http.Handler{
		"a redirect": http.RedirectHandler(elsewhereURL, http.StatusMovedPermanently),
		"1 MB of headers": http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("X-Padding", strings.Repeat("x", 1<<20))
			fakestock.New().ServeHTTP(w, r)
		}),
	} {
		t.Run(name, func(t *testing.T) {
			stockURL, _ := fakestock.Loopback(t, stock)
			client := newStockClient(false)
			defer client.CloseIdleConnections()
			rec := httptest.NewRecorder()
			newMenuService(client, stockURL, time.Second).handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/menu", nil))
			assert.Equal(t, http.StatusBadGateway, rec.Code, "GET /menu, the stock service sending %s: got %d, want 502", name, rec.Code)
		})
	}
	assert.Zero(t, elsewhere.Started(), "requests that reached the server the stock service redirected to; want none: the menu follows no redirect")
}
