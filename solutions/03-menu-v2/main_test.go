package main

import (
	"io"
	"net/http"
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
	t.Run("serves and shuts down", func(t *testing.T) {
		leakcheck.Check(t)
		// The second stock request takes 400ms: the menu answers 504 at 200ms,
		// which leaves 200ms to spare for a loopback round trip.
		fake := fakestock.New(fakestock.Reply{}, fakestock.Reply{Delay: 400 * time.Millisecond})
		stockURL, _ := fakestock.Loopback(t, fake)
		srv := runtest.Start(t, run, "-stock-url", stockURL, "-timeout", "200ms")

		resp, body := srv.Get(t, "/menu")
		if assert.Equal(t, http.StatusOK, resp.StatusCode, "GET /menu: got %d %s, want 200", resp.StatusCode, body) {
			assert.JSONEq(t, menutest.MenuJSON, body, "GET /menu: got the wrong menu")
		}
		resp, body = srv.Get(t, "/menu")
		assert.Equal(t, http.StatusGatewayTimeout, resp.StatusCode, "GET /menu, the stock taking 400ms, -timeout 200ms: got %d %s, want 504", resp.StatusCode, body)
		assert.NoError(t, srv.Stop(), "run after Ctrl-C: want nil (http.ErrServerClosed is a graceful shutdown)")
	})

	t.Run("refuses a zero timeout", func(t *testing.T) {
		err := run(t.Context(), []string{"-timeout", "0s"}, io.Discard)
		assert.ErrorContains(t, err, "-timeout", "run -timeout 0s: want an error that names the flag")
	})

	runtest.CheckShape(t, runtest.Shape{Run: run, Serve: serve, DefaultAddr: "localhost:3000", IdleTimeout: &idleTimeout, ReadTimeout: &readTimeout})
}
