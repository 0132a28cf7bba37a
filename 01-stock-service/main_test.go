package main

import (
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

	runtest.CheckShape(t, runtest.Shape{Run: run, Serve: serve, DefaultAddr: "localhost:4000", IdleTimeout: &idleTimeout, ReadTimeout: &readTimeout})
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
