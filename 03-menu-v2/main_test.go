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
	t.Run("serves GET /menu, and 504 once -timeout has passed, then shuts down gracefully", func(t *testing.T) {
		requireNoLeak(t)
		leakcheck.Check(t)
		requireTimesOut(t) // milliseconds; a menu that would fail below fails here, at once
		// The first stock request is answered at once; the second would take
		// 400ms. Version 2 answers 504 at 200ms and leaves that request
		// running for the rest of its 400ms, for nobody. 200ms is a long time
		// for a loopback round trip, even on a busy machine, and the menu's
		// 200ms started before the request arrived: a 504 has 200ms to spare.
		fake := fakestock.New(fakestock.Reply{}, fakestock.Reply{Delay: 400 * time.Millisecond})
		stockURL, _ := fakestock.Loopback(t, fake)
		srv := runtest.Start(t, run, "-stock-url", stockURL, "-timeout", "200ms")

		resp, body := srv.Get(t, "/menu")
		if assert.Equal(t, http.StatusOK, resp.StatusCode, "GET /menu from the running service answered %d: %s; want 200", resp.StatusCode, body) {
			assert.JSONEq(t, menutest.MenuJSON, body, "GET /menu from the running service")
		}
		resp, body = srv.Get(t, "/menu")
		assert.Equal(t, http.StatusGatewayTimeout, resp.StatusCode, "GET /menu, the stock service taking 400ms and -timeout 200ms, answered %d: %s; want 504 (task 1)", resp.StatusCode, body)
		assert.NoError(t, srv.Stop(), "run's result after its context was cancelled, as Ctrl-C does; want nil: http.ErrServerClosed means a graceful shutdown")
	})

	t.Run("refuses a -timeout that is not positive", func(t *testing.T) {
		err := run(t.Context(), []string{"-timeout", "0s"}, io.Discard)
		assert.ErrorContains(t, err, "-timeout", "run -timeout 0s; want an error that names the flag")
	})
}
