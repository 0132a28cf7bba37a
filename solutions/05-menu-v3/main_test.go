package main

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/icecreamcorp/go-cancellation-workshop/internal/fakestock"
	"github.com/icecreamcorp/go-cancellation-workshop/internal/menutest"
	"github.com/icecreamcorp/go-cancellation-workshop/internal/runtest"
)

// The server's shape in main.go is given complete. TestRun runs it as
// `go run ./05-menu-v3` would, flags and all: client → menu → stock, over TCP.
func TestRun(t *testing.T) {
	guard(t)

	t.Run("serves", func(t *testing.T) {
		// A timeout through run, over TCP: h2c below, and TestRealSockets.
		stockURL, _ := fakestock.Loopback(t, fakestock.New(fakestock.Reply{}))
		srv := runtest.Start(t, run, "-stock-url", stockURL)

		resp, body := srv.Get(t, "/menu")
		check(t, resp.StatusCode == http.StatusOK && menutest.EqualJSON(body, menutest.MenuJSON), "GET /menu: got %d %s, want 200 and the menu", resp.StatusCode, body)
		err := srv.Stop()
		check(t, err == nil, "run after Ctrl-C: got %v, want nil, a graceful shutdown", err)
	})

	t.Run("h2c", func(t *testing.T) {
		// 3 calls of 300ms, each given up after 50ms: fewer than -fail-after's 5.
		fake := fakestock.New(fakestock.Reply{Delay: 300 * time.Millisecond})
		var notH2, conns atomic.Int64 // requests not over HTTP/2, connections
		stock := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.ProtoMajor != 2 {
				notH2.Add(1)
			}
			fake.ServeHTTP(w, r)
		}))
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
			must(t, resp.StatusCode == http.StatusGatewayTimeout, "GET /menu #%d, -timeout 50ms: got %d %s, want 504", i+1, resp.StatusCode, body)
		}
		for _, call := range fake.Await(t, 3, 5*time.Second) {
			check(t, call.Outcome == fakestock.Abandoned, "stock %v, want abandoned: over HTTP/2 a cancel resets the stream", call)
		}
		check(t, notH2.Load() == 0, "got %d of 3 stock calls not over HTTP/2, want none", notH2.Load())
		check(t, conns.Load() == int64(1), "connections for 3 cancelled calls over h2c: got %d, want 1 (a cancel is a RST_STREAM frame)", conns.Load())
		err := srv.Stop()
		check(t, err == nil, "run -h2c after Ctrl-C: got %v, want nil, a graceful shutdown", err)
	})

	t.Run("flags", func(t *testing.T) {
		for _, args := range [][]string{{"-fail-after", "-1"}, {"-cool-down", "0s"}} {
			err := run(t.Context(), args, io.Discard)
			check(t, err != nil && strings.Contains(err.Error(), args[0]), "run %v: got %v, want an error naming the flag", args, err)
		}
	})

	runtest.CheckShape(t, runtest.Shape{Run: run, Serve: serve, DefaultAddr: "localhost:3000", IdleTimeout: &idleTimeout, ReadTimeout: &readTimeout})

	// The menu calls the stock service it was given, and only it, and reads
	// no more of its headers than they need.
	t.Run("stock client", func(t *testing.T) {
		menutest.GuardsTheStockClient(t, newStockClient(false), func(client *http.Client, stockURL string) http.Handler {
			return newMenuService(client, stockURL, time.Second).handler()
		})
	})
}
