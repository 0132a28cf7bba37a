package main

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/icecreamcorp/go-cancellation-workshop/internal/fakestock"
	"github.com/icecreamcorp/go-cancellation-workshop/internal/leakcheck"
	"github.com/icecreamcorp/go-cancellation-workshop/internal/menutest"
	"github.com/icecreamcorp/go-cancellation-workshop/internal/runtest"
)

// The server's shape in main.go is given complete. This test runs it as
// `go run ./03-menu-v2` would, flags and all, against a fake stock service
// on a real socket: the whole chain, client → menu → stock, over TCP.
func TestRun(t *testing.T) {
	t.Run("serves GET /menu, and 504 once -timeout has passed, then shuts down gracefully", func(t *testing.T) {
		requireNoLeak(t)
		leakcheck.Check(t)
		requireTimesOut(t) // milliseconds; a menu that would fail below fails here, at once
		// The first stock request is answered at once; the second would take
		// 400ms. Version 2 answers 504 at 200ms and leaves that request
		// running for the rest of its 400ms, for nobody. 200ms is a long time
		// for a loopback round trip, even on a busy machine, and the menu's
		// 200ms started before the request arrived: a 504 has 200ms to spare.
		fake := fakestock.New(fakestock.Reply{}, fakestock.Reply{Delay: 400 * time.Millisecond})
		stockURL, _ := fakestock.Loopback(t, fake)
		srv := runtest.Start(t, run, "-stock-url", stockURL, "-timeout", "200ms")

		resp, body := srv.Get(t, "/menu")
		if assert.Equal(t, http.StatusOK, resp.StatusCode, "GET /menu from the running service answered %d: %s; want 200", resp.StatusCode, body) {
			assert.JSONEq(t, menutest.MenuJSON, body, "GET /menu from the running service")
		}
		resp, body = srv.Get(t, "/menu")
		assert.Equal(t, http.StatusGatewayTimeout, resp.StatusCode, "GET /menu, the stock service taking 400ms and -timeout 200ms, answered %d: %s; want 504 (task 1)", resp.StatusCode, body)
		assert.NoError(t, srv.Stop(), "run's result after its context was cancelled, as Ctrl-C does; want nil: http.ErrServerClosed means a graceful shutdown")
	})

	t.Run("refuses a -timeout that is not positive", func(t *testing.T) {
		err := run(t.Context(), []string{"-timeout", "0s"}, io.Discard)
		assert.ErrorContains(t, err, "-timeout", "run -timeout 0s; want an error that names the flag")
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
			client := newStockClient()
			defer client.CloseIdleConnections()
			rec := httptest.NewRecorder()
			newMenuService(client, stockURL, time.Second).handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/menu", nil))
			assert.Equal(t, http.StatusBadGateway, rec.Code, "GET /menu, the stock service sending %s: got %d, want 502", name, rec.Code)
		})
	}
	assert.Zero(t, elsewhere.Started(), "requests that reached the server the stock service redirected to; want none: the menu follows no redirect")
}
