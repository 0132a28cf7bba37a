package main

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/icecreamcorp/go-cancellation-workshop/internal/leakcheck"
	"github.com/icecreamcorp/go-cancellation-workshop/internal/runtest"
)

// The server's shape in main.go is given complete: these tests pass from the
// start, and show how a test drives run as `go run ./01-stock-service` would
// (internal/runtest starts it on a free port of 127.0.0.1).
func TestRun(t *testing.T) {
	t.Run("serves on the address of -addr until its context is cancelled", func(t *testing.T) {
		leakcheck.Check(t)
		srv := runtest.Start(t, run, "-max-delay", "0s")

		resp, body := srv.Get(t, "/debug/vars")
		assert.Equal(t, http.StatusOK, resp.StatusCode, "GET /debug/vars from the running service answered %d: %s", resp.StatusCode, body)
		assert.NoError(t, srv.Stop(), "run's result after its context was cancelled, as Ctrl-C does; want nil: http.ErrServerClosed means a graceful shutdown")
	})

	t.Run("with -h2c, serves HTTP/2 without TLS beside HTTP/1.1", func(t *testing.T) {
		leakcheck.Check(t)
		srv := runtest.Start(t, run, "-max-delay", "0s", "-h2c")

		resp, body := srv.Get(t, "/debug/vars") // srv.Client speaks HTTP/1.1
		assert.Equal(t, 1, resp.ProtoMajor, "GET /debug/vars over HTTP/1.1 from a service started with -h2c came back as %s: %s; want HTTP/1.1 still served", resp.Proto, body)
		h2c := h2cClient(t)
		resp, err := h2c.Get("http://" + srv.Addr + "/debug/vars")
		if assert.NoError(t, err, "GET /debug/vars over HTTP/2 without TLS (prior knowledge) from a service started with -h2c") {
			resp.Body.Close()
			assert.Equal(t, 2, resp.ProtoMajor, "GET /debug/vars over h2c came back as %s; want HTTP/2.0", resp.Proto)
		}
		// Hang up first: a server shutting down gives an open HTTP/2
		// connection a second to leave after it says goodbye (GOAWAY).
		h2c.CloseIdleConnections()
		assert.NoError(t, srv.Stop(), "run -h2c's result after its context was cancelled; want nil after a graceful shutdown")
	})

	t.Run("without -h2c, speaks HTTP/1.1 only", func(t *testing.T) {
		leakcheck.Check(t)
		srv := runtest.Start(t, run, "-max-delay", "0s")

		resp, err := h2cClient(t).Get("http://" + srv.Addr + "/debug/vars")
		if err == nil {
			resp.Body.Close()
		}
		assert.Error(t, err, "GET /debug/vars over h2c from a service started without -h2c; want it refused: h2c is opt-in")
	})

	t.Run("refuses a negative -max-delay", func(t *testing.T) {
		err := run(t.Context(), []string{"-max-delay", "-1s"}, io.Discard)
		assert.ErrorContains(t, err, "max-delay", "run -max-delay -1s")
	})

	t.Run("refuses a flag it does not know", func(t *testing.T) {
		err := run(t.Context(), []string{"-max-dealy", "1s"}, io.Discard)
		assert.ErrorContains(t, err, "max-dealy", "run -max-dealy 1s (a typo)")
	})

	t.Run("listens on loopback by default", func(t *testing.T) {
		var usage strings.Builder
		run(t.Context(), []string{"-h"}, &usage)
		_, addr, _ := strings.Cut(usage.String(), `(default "`) // -addr comes first
		addr, _, _ = strings.Cut(addr, `"`)
		assert.Equal(t, "localhost:4000", addr, "run -h: the default of -addr; want loopback (-addr :4000 listens on every interface)")
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

// h2cClient returns a client that speaks only HTTP/2 without TLS, with
// prior knowledge: no upgrade, no fallback to HTTP/1.1. Its connections are
// closed when the test ends.
func h2cClient(t *testing.T) *http.Client {
	tr := &http.Transport{Protocols: new(http.Protocols)}
	tr.Protocols.SetUnencryptedHTTP2(true)
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr, Timeout: 10 * time.Second}
}
