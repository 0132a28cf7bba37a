package main

import (
	"io"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/icecreamcorp/go-cancellation-workshop/internal/fakestock"
	"github.com/icecreamcorp/go-cancellation-workshop/internal/leakcheck"
	"github.com/icecreamcorp/go-cancellation-workshop/internal/menutest"
	"github.com/icecreamcorp/go-cancellation-workshop/internal/runtest"
)

// The server's shape in main.go is given complete. This test runs it as
// `go run ./02-menu-v1` would, flags and all, against a fake stock service
// on a real socket: the whole chain, client → menu → stock, over TCP.
func TestRun(t *testing.T) {
	t.Run("serves and shuts down", func(t *testing.T) {
		leakcheck.Check(t)
		stockURL, _ := fakestock.Loopback(t, fakestock.New())
		srv := runtest.Start(t, run, "-stock-url", stockURL)

		resp, body := srv.Get(t, "/menu")
		if assert.Equal(t, http.StatusOK, resp.StatusCode, "GET /menu: got %d %s, want 200", resp.StatusCode, body) {
			assert.JSONEq(t, menutest.MenuJSON, body, "GET /menu: got the wrong menu")
		}
		assert.NoError(t, srv.Stop(), "run after Ctrl-C: want nil (http.ErrServerClosed is a graceful shutdown)")
	})

	t.Run("refuses an unknown flag", func(t *testing.T) {
		err := run(t.Context(), []string{"-stock-ulr", "http://127.0.0.1:4000/stock"}, io.Discard)
		assert.ErrorContains(t, err, "stock-ulr", "run -stock-ulr (a typo): want an error that names the flag")
	})

	runtest.CheckShape(t, runtest.Shape{Run: run, Serve: serve, DefaultAddr: "localhost:3000", IdleTimeout: &idleTimeout, ReadTimeout: &readTimeout})
}
