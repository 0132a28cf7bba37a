package main

import (
	"context"
	"fmt"
	"net/http"
	"regexp"
	"testing"
	"time"

	"github.com/icecreamcorp/go-cancellation-workshop/internal/leakcheck"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The server's shape in main.go is given complete: these tests pass from the
// start, and show how a test drives run.

// logLines is run's stdout in a test: slog writes each record with one
// Write, which becomes one string on the channel. It never blocks run.
type logLines chan string

func (l logLines) Write(p []byte) (int, error) {
	select {
	case l <- string(p):
	default: // nobody is reading: drop the line
	}
	return len(p), nil
}

func TestRun(t *testing.T) {
	t.Run("serves on the address of -addr until its context is cancelled", func(t *testing.T) {
		leakcheck.Check(t)
		transport := &http.Transport{}
		t.Cleanup(transport.CloseIdleConnections)
		client := &http.Client{Transport: transport, Timeout: 10 * time.Second}

		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		logs := make(logLines, 100)
		stopped := make(chan error, 1)
		go func() { stopped <- run(ctx, []string{"-addr", "127.0.0.1:0", "-max-delay", "0s"}, logs) }()

		// The log line "stock service listening addr=127.0.0.1:PORT" says which port ":0" picked.
		addrRE := regexp.MustCompile(`addr=(127\.0\.0\.1:\d+)`)
		var addr string
		for addr == "" {
			select {
			case line := <-logs:
				if m := addrRE.FindStringSubmatch(line); m != nil {
					addr = m[1]
				}
			case err := <-stopped:
				require.Fail(t, fmt.Sprintf("run returned %v before logging the address it listens on", err))
			case <-time.After(10 * time.Second):
				require.Fail(t, "waited 10s for run to log \"addr=127.0.0.1:PORT\"; it never did")
			}
		}

		resp, err := client.Get("http://" + addr + "/debug/vars")
		require.NoError(t, err, "GET /debug/vars from the running service")
		resp.Body.Close()
		assert.Equal(t, http.StatusOK, resp.StatusCode, "GET /debug/vars from the running service")

		cancel() // what Ctrl-C does, through signal.NotifyContext
		select {
		case err := <-stopped:
			assert.NoError(t, err, "run's result after a graceful shutdown; http.ErrServerClosed means success")
		case <-time.After(10 * time.Second):
			require.Fail(t, "run was still serving 10s after its context was cancelled; want a graceful shutdown")
		}
	})

	t.Run("refuses a negative -max-delay", func(t *testing.T) {
		err := run(t.Context(), []string{"-max-delay", "-1s"}, logLines(nil))
		assert.ErrorContains(t, err, "max-delay", "run -max-delay -1s")
	})

	t.Run("refuses a flag it does not know", func(t *testing.T) {
		err := run(t.Context(), []string{"-max-dealy", "1s"}, logLines(nil))
		assert.ErrorContains(t, err, "max-dealy", "run -max-dealy 1s (a typo)")
	})
}
