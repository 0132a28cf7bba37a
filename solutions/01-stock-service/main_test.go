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

// The server's shape in main.go is given complete: TestRun passes from the
// start, and shows how a test drives run as `go run ./01-stock-service` would.
func TestRun(t *testing.T) {
	for _, h2c := range []bool{false, true} {
		name, args := "http1", []string{"-max-delay", "0s"}
		if h2c {
			name, args = "h2c", append(args, "-h2c")
		}
		t.Run(name, func(t *testing.T) {
			leakcheck.Check(t)
			srv := runtest.Start(t, run, args...)
			if resp, body := srv.Get(t, "/debug/vars"); resp.StatusCode != http.StatusOK { // over HTTP/1.1
				t.Errorf("run %q: GET /debug/vars: got %d %s, want 200", args, resp.StatusCode, body)
			}
			if got, want := h2cProto(srv.Addr), map[bool]string{false: "refused", true: "HTTP/2.0"}[h2c]; got != want {
				t.Errorf("run %q: GET /debug/vars over h2c: got %s, want %s (h2c is opt-in)", args, got, want)
			}
			if err := srv.Stop(); err != nil {
				t.Errorf("run %q after its context was cancelled: got %v, want nil", args, err)
			}
		})
	}
	t.Run("bad flags", func(t *testing.T) {
		for _, args := range [][]string{{"-max-delay", "-1s"}, {"-max-dealy", "1s"}} {
			if err := run(t.Context(), args, io.Discard); err == nil || !strings.Contains(err.Error(), args[0][1:]) {
				t.Errorf("run %q: got %v, want an error naming %s", args, err, args[0])
			}
		}
	})
	runtest.CheckShape(t, runtest.Shape{Run: run, Serve: serve, DefaultAddr: "localhost:4000", IdleTimeout: &idleTimeout, ReadTimeout: &readTimeout})
}

// h2cProto asks addr for GET /debug/vars over HTTP/2 without TLS, with prior
// knowledge, and returns the answer's protocol, or "refused". It hangs up
// before it returns: a server shutting down gives an open HTTP/2 connection
// a second to leave.
func h2cProto(addr string) string {
	tr := &http.Transport{Protocols: new(http.Protocols)}
	tr.Protocols.SetUnencryptedHTTP2(true)
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr, Timeout: 10 * time.Second}).Get("http://" + addr + "/debug/vars")
	if err != nil {
		return "refused"
	}
	resp.Body.Close()
	return resp.Proto
}
