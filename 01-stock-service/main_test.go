package main

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/icecreamcorp/go-cancellation-workshop/internal/leakcheck"
	"github.com/icecreamcorp/go-cancellation-workshop/internal/runtest"
	"github.com/icecreamcorp/go-cancellation-workshop/internal/serve"
)

// The server's shape in main.go is given complete: TestRun passes from the
// start, and shows how a test drives run as `go run ./01-stock-service` would.
func TestRun(t *testing.T) {
	for _, h2c := range []string{"-h2c=false", "-h2c=true"} {
		t.Run(h2c[1:], func(t *testing.T) {
			leakcheck.Check(t)
			srv := runtest.Start(t, run, "-max-delay", "0s", h2c) // its cleanup checks that run returns nil
			resp, _ := srv.Get(t, "/debug/vars")                  // over HTTP/1.1
			tr := &http.Transport{Protocols: new(http.Protocols)} // and over h2c: HTTP/2, prior knowledge
			tr.Protocols.SetUnencryptedHTTP2(true)
			defer tr.CloseIdleConnections() // a shutdown gives an open HTTP/2 connection a second to leave
			got, want := "refused", map[string]string{"-h2c=false": "refused", "-h2c=true": "HTTP/2.0"}[h2c]
			if resp, err := (&http.Client{Transport: tr, Timeout: 10 * time.Second}).Get("http://" + srv.Addr + "/debug/vars"); err == nil {
				got = resp.Proto
				resp.Body.Close()
			}
			if resp.StatusCode != http.StatusOK || got != want {
				t.Errorf("run %s: GET /debug/vars: got %d over HTTP/1.1, %s over h2c; want 200, %s (h2c is opt-in)", h2c, resp.StatusCode, got, want)
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
	runtest.CheckShape(t, runtest.Shape{Run: run, Serve: serve.Serve, DefaultAddr: "localhost:4000", IdleTimeout: &serve.IdleTimeout, ReadTimeout: &serve.ReadTimeout})
}
