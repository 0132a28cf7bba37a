package main

import (
	"io"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/icecreamcorp/go-cancellation-workshop/internal/leakcheck"
	"github.com/icecreamcorp/go-cancellation-workshop/internal/runtest"
)

// The server's shape in main.go is given complete: these tests pass from the
// start, and show how a test drives run as `go run ./01-stock-service` would
// (internal/runtest starts it on a free port of 127.0.0.1).
func TestRun(t *testing.T) {
	t.Run("serves on the address of -addr until its context is cancelled", func(t *testing.T) {
		leakcheck.Check(t)
		srv := runtest.Start(t, run, "-max-delay", "0s")

		resp, body := srv.Get(t, "/debug/vars")
		assert.Equal(t, http.StatusOK, resp.StatusCode, "GET /debug/vars from the running service answered %d: %s", resp.StatusCode, body)
		assert.NoError(t, srv.Stop(), "run's result after its context was cancelled, as Ctrl-C does; want nil: http.ErrServerClosed means a graceful shutdown")
	})

	t.Run("refuses a negative -max-delay", func(t *testing.T) {
		err := run(t.Context(), []string{"-max-delay", "-1s"}, io.Discard)
		assert.ErrorContains(t, err, "max-delay", "run -max-delay -1s")
	})

	t.Run("refuses a flag it does not know", func(t *testing.T) {
		err := run(t.Context(), []string{"-max-dealy", "1s"}, io.Discard)
		assert.ErrorContains(t, err, "max-dealy", "run -max-dealy 1s (a typo)")
	})
}
