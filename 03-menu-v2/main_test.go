package main

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/icecreamcorp/go-cancellation-workshop/internal/fakestock"
	"github.com/icecreamcorp/go-cancellation-workshop/internal/leakcheck"
	"github.com/icecreamcorp/go-cancellation-workshop/internal/menutest"
	"github.com/icecreamcorp/go-cancellation-workshop/internal/runtest"
	"github.com/icecreamcorp/go-cancellation-workshop/internal/serve"
)

// TestMain guards http.DefaultTransport: a menu that calls the stock service
// with http.Get, not with its client, gets an error at once.
func TestMain(m *testing.M) { menutest.Main(m) }

// The server's shape in main.go is given complete. TestRun runs it as
// `go run ./03-menu-v2` would, against a fake stock service over TCP.
func TestRun(t *testing.T) {
	t.Run("serves and shuts down", func(t *testing.T) {
		leakcheck.Check(t)
		stockURL, _ := fakestock.Loopback(t, fakestock.New(fakestock.Reply{}, fakestock.Reply{Body: `{"stock":[]}`}))
		srv := runtest.Start(t, run, "-stock-url", stockURL, "-timeout", "5s") // its cleanup stops it as Ctrl-C would, and wants nil
		for i, want := range []string{menutest.MenuJSON, `{"menu":[]}`} {
			if resp, body := srv.Get(t, "/menu"); resp.StatusCode != http.StatusOK || !menutest.EqualJSON(body, want) {
				t.Fatalf("GET /menu #%d: got %d %s, want 200 and %s (GET the -stock-url as given, for every menu)", i+1, resp.StatusCode, strings.TrimSpace(body), []string{"the menu", "an empty menu"}[i])
			}
		}
	})

	t.Run("zero timeout", func(t *testing.T) {
		if err := run(t.Context(), []string{"-timeout", "0s"}, io.Discard); err == nil || !strings.Contains(err.Error(), "-timeout") {
			t.Errorf("run -timeout 0s: got %v, want an error naming -timeout", err)
		}
	})

	runtest.CheckShape(t, runtest.Shape{Run: run, Serve: serve.Serve, DefaultAddr: "localhost:3000", IdleTimeout: &serve.IdleTimeout, ReadTimeout: &serve.ReadTimeout})
}
