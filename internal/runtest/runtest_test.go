package runtest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/icecreamcorp/go-cancellation-workshop/internal/leakcheck"
)

// hello is a service of the workshop's shape in miniature.
func hello(ctx context.Context, args []string, stdout io.Writer) error {
	addr := ":8080"
	for i := 0; i+1 < len(args); i++ {
		if args[i] == "-addr" {
			addr = args[i+1]
		}
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "level=INFO msg=listening addr=%s\n", ln.Addr())
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "hello from "+r.URL.Path)
	})}
	go func() { <-ctx.Done(); srv.Close() }()
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

func TestStart(t *testing.T) {
	t.Run("serves on the address it logs, and stops when asked", func(t *testing.T) {
		leakcheck.Check(t)
		srv := Start(t, hello)
		resp, body := srv.Get(t, "/menu")
		assert.Equal(t, http.StatusOK, resp.StatusCode)
		assert.Equal(t, "hello from /menu", body)
		assert.Contains(t, srv.log.String(), "addr="+srv.Addr)
		assert.NoError(t, srv.Stop(), "a graceful stop")
		assert.NoError(t, srv.Stop(), "stopping twice gives the same result")
	})

	t.Run("says so when run fails before listening", func(t *testing.T) {
		r := &fatalRecorder{TB: t}
		broken := func(context.Context, []string, io.Writer) error {
			return errors.New("flag provided but not defined: -addr")
		}
		func() {
			defer func() { recover() }() // fatalRecorder.Fatalf stops Start, as t.Fatalf would
			Start(r, broken, "-x")
		}()
		require.NotEmpty(t, r.msg, "Start should fail the test")
		assert.Contains(t, r.msg, "returned flag provided but not defined: -addr before it logged the address")
	})
}

type fatalRecorder struct {
	testing.TB
	msg string
}

func (r *fatalRecorder) Helper() {}
func (r *fatalRecorder) Fatalf(format string, args ...any) {
	r.msg = fmt.Sprintf(format, args...)
	panic("Fatalf")
}
