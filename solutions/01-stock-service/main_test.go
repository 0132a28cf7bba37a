package main

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/icecreamcorp/go-cancellation-workshop/internal/leakcheck"
	"github.com/icecreamcorp/go-cancellation-workshop/internal/runtest"
)

// The server's shape in main.go is given complete: these tests pass from the
// start, and show how a test drives run as `go run ./01-stock-service` would
// (internal/runtest starts it on a free port of 127.0.0.1).
func TestRun(t *testing.T) {
	t.Run("serves until cancelled", func(t *testing.T) {
		leakcheck.Check(t)
		srv := runtest.Start(t, run, "-max-delay", "0s")
		if resp, body := srv.Get(t, "/debug/vars"); resp.StatusCode != http.StatusOK {
			t.Errorf("GET /debug/vars: got %d %s, want 200", resp.StatusCode, body)
		}
		if resp, err := h2cClient(t).Get("http://" + srv.Addr + "/debug/vars"); err == nil {
			resp.Body.Close()
			t.Errorf("run without -h2c: GET /debug/vars over h2c answered %s, want it refused (h2c is opt-in)", resp.Status)
		}
		if err := srv.Stop(); err != nil {
			t.Errorf("run after its context was cancelled: got %v, want nil (a graceful shutdown)", err)
		}
	})

	t.Run("h2c", func(t *testing.T) {
		leakcheck.Check(t)
		srv := runtest.Start(t, run, "-max-delay", "0s", "-h2c")
		if resp, body := srv.Get(t, "/debug/vars"); resp.ProtoMajor != 1 { // srv.Get speaks HTTP/1.1
			t.Errorf("run -h2c: GET /debug/vars over HTTP/1.1 came back as %s %s, want HTTP/1.1 still served", resp.Proto, body)
		}
		h2c := h2cClient(t)
		if resp, err := h2c.Get("http://" + srv.Addr + "/debug/vars"); err != nil {
			t.Errorf("run -h2c: GET /debug/vars over h2c: %v", err)
		} else if resp.Body.Close(); resp.ProtoMajor != 2 {
			t.Errorf("run -h2c: GET /debug/vars over h2c came back as %s, want HTTP/2.0", resp.Proto)
		}
		// Hang up first: a server shutting down gives an open HTTP/2
		// connection a second to leave after it says goodbye (GOAWAY).
		h2c.CloseIdleConnections()
		if err := srv.Stop(); err != nil {
			t.Errorf("run -h2c after its context was cancelled: got %v, want nil", err)
		}
	})

	t.Run("bad flags", func(t *testing.T) {
		for _, args := range [][]string{{"-max-delay", "-1s"}, {"-max-dealy", "1s"}} {
			if err := run(t.Context(), args, io.Discard); err == nil || !strings.Contains(err.Error(), args[0][1:]) {
				t.Errorf("run %q: got %v, want an error naming %s", args, err, args[0])
			}
		}
	})

	t.Run("loopback by default", func(t *testing.T) {
		var usage strings.Builder
		run(t.Context(), []string{"-h"}, &usage)
		_, addr, _ := strings.Cut(usage.String(), `(default "`) // -addr comes first
		addr, _, _ = strings.Cut(addr, `"`)
		if addr != "localhost:4000" {
			t.Errorf("run -h: got -addr default %q, want localhost:4000 (-addr :4000 listens on every interface)", addr)
		}
	})

	t.Run("idle connection closed", func(t *testing.T) {
		leakcheck.Check(t)
		defer func(d time.Duration) { idleTimeout = d }(idleTimeout)
		idleTimeout = 50 * time.Millisecond
		srv := runtest.Start(t, run)
		if err := srv.IdleConn(t, "/", time.Second); err != nil {
			t.Errorf("%v; want it closed after idleTimeout (50ms here): set http.Server.IdleTimeout", err)
		}
	})

	t.Run("body never sent", func(t *testing.T) {
		leakcheck.Check(t)
		defer func(d time.Duration) { readTimeout = d }(readTimeout)
		readTimeout = 50 * time.Millisecond
		srv := runtest.Start(t, run)
		if err := srv.BodyNeverSent(t, "/", time.Second); err != nil {
			t.Errorf("%v (readTimeout is 50ms here): set http.Server.ReadTimeout", err)
		}
	})

	t.Run("grace runs out", func(t *testing.T) {
		leakcheck.Check(t)
		if err := runtest.OutliveGrace(t, serve); !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("serve after a request outlived the grace: got %v, want context.DeadlineExceeded (not a clean shutdown: exit 1)", err)
		}
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
