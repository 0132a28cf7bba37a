package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/icecreamcorp/go-cancellation-workshop/internal/fakestock"
	"github.com/icecreamcorp/go-cancellation-workshop/internal/menutest"
	"github.com/icecreamcorp/go-cancellation-workshop/internal/runtest"
	"github.com/icecreamcorp/go-cancellation-workshop/internal/serve"
)

// TestMain guards http.DefaultTransport: a menu that calls http.Get, not its
// client, gets an error at once, not a DNS lookup that would crash the tests.
func TestMain(m *testing.M) { menutest.Main(m) }

// Step 02's tests still hold: version 3 behaves as version 1 whenever the
// stock service answers in time (internal/menutest/v1.go).
func TestVersion1(t *testing.T) {
	t.Run("menu", func(t *testing.T) { menutest.ServesTheMenu(t, newTestMenu) })
	t.Run("failures", func(t *testing.T) { menutest.AnswersBadGateway(t, newTestMenu, maxStockBody) })
	t.Run("body", func(t *testing.T) { menutest.ClosesTheBody(t, newTestMenu, maxStockBody) })
}

// BenchmarkMenu measures one GET /menu when the stock service answers at
// once, as step 02's does: go test -run '^$' -bench Menu ./02-menu-v1 ./05-menu-v3
func BenchmarkMenu(b *testing.B) {
	menutest.BenchmarkMenu(b, func(client *http.Client, stockURL string) http.Handler {
		return newMenuService(client, stockURL, time.Second).handler()
	})
}

// The server's shape in main.go is given complete. TestRun runs it as
// `go run ./05-menu-v3` would, flags and all: client → menu → stock, over TCP.
func TestRun(t *testing.T) {
	guard(t)

	t.Run("serves", func(t *testing.T) {
		stockURL, _ := fakestock.Loopback(t, fakestock.New())
		srv := runtest.Start(t, run, "-stock-url", stockURL)
		for i := range 2 { // each call with a context of its own
			resp, body := srv.Get(t, "/menu")
			check(t, resp.StatusCode == http.StatusOK && menutest.EqualJSON(body, menutest.MenuJSON), "GET /menu #%d: got %d %s, want 200 and the menu", i+1, resp.StatusCode, body)
		}
		err := srv.Stop()
		check(t, err == nil, "run after Ctrl-C: got %v, want nil, a graceful shutdown", err)
	})

	t.Run("cancels over h2c", func(t *testing.T) {
		var arrived atomic.Bool
		left := make(chan struct{}, 1) // once its caller left
		stock := httptest.NewUnstartedServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
			arrived.Store(true)
			<-r.Context().Done()
			left <- struct{}{}
		}))
		stock.Config.Protocols = new(http.Protocols)
		stock.Config.Protocols.SetUnencryptedHTTP2(true)
		stock.Start()
		t.Cleanup(func() { stock.CloseClientConnections(); stock.Close() })
		srv := runtest.Start(t, run, "-stock-url", stock.URL+"/stock", "-timeout", "50ms", "-h2c")

		resp, body := srv.Get(t, "/menu")
		must(t, resp.StatusCode == http.StatusGatewayTimeout && !strings.Contains(body, stock.URL), "GET /menu, -timeout 50ms: got %d %s, want 504 and no URL", resp.StatusCode, strings.TrimSpace(body))
		check(t, strings.Count(srv.Log(), stock.URL) > 1, "GET /menu, -timeout 50ms: got the stock URL in the log only at start-up, want it in the call's own error, logged")
		select {
		case <-left: // over HTTP/2 only: the stock service speaks nothing else
		case <-time.After(2 * time.Second): // or the call, on a busy machine, ended before it arrived
			check(t, !arrived.Load(), "the stock call still running 2s after the 504, want it cancelled (http.NewRequestWithContext)")
		}
		err := srv.Stop()
		check(t, err == nil, "run -h2c after Ctrl-C: got %v, want nil, a graceful shutdown", err)
	})

	t.Run("flags", func(t *testing.T) {
		for _, args := range [][]string{{"-fail-after", "-1"}, {"-cool-down", "0s"}} {
			err := run(t.Context(), args, io.Discard)
			check(t, err != nil && strings.Contains(err.Error(), args[0]), "run %v: got %v, want an error naming the flag", args, err)
		}
	})

	runtest.CheckShape(t, runtest.Shape{Run: run, Serve: serve.Serve, DefaultAddr: "localhost:3000", IdleTimeout: &serve.IdleTimeout, ReadTimeout: &serve.ReadTimeout})

	// The menu calls only the stock service it was given, and reads little of its headers.
	t.Run("stock client", func(t *testing.T) {
		menutest.GuardsTheStockClient(t, newStockClient(false), func(client *http.Client, stockURL string) http.Handler {
			return newMenuService(client, stockURL, time.Second).handler()
		})
	})
}
