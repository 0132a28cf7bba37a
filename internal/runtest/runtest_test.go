package runtest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/icecreamcorp/go-cancellation-workshop/internal/leakcheck"
)

// hello is a service of the workshop's shape in miniature; with -timeouts
// it closes idle connections, and waits for a body, 50ms at most.
func hello(ctx context.Context, args []string, stdout io.Writer) error {
	ln, err := net.Listen("tcp", args[slices.Index(args, "-addr")+1])
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "level=INFO msg=listening addr=%s\n", ln.Addr())
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "hello from "+r.URL.Path)
	})}
	if slices.Contains(args, "-timeouts") {
		srv.IdleTimeout, srv.ReadTimeout = 50*time.Millisecond, 50*time.Millisecond
	}
	go func() { <-ctx.Done(); srv.Close() }()
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// Start finds the address logged, Get reaches it, Stop twice says the same;
// the connection checks fail on a server without timeouts only.
func TestStart(t *testing.T) {
	leakcheck.Check(t)
	for _, args := range [][]string{nil, {"-timeouts"}} {
		srv := Start(t, hello, args...)
		if resp, body := srv.Get(t, "/menu"); resp.StatusCode != 200 || body != "hello from /menu" || !strings.Contains(srv.log.String(), "addr="+srv.Addr) {
			t.Errorf("got %d %q, log %q; want 200 from the address logged", resp.StatusCode, body, srv.log)
		}
		idle, body := srv.idleConn(t), srv.bodyNeverSent(t)
		if want := args == nil; (idle != nil) != want || (body != nil) != want {
			t.Errorf("hello %q: got %v and %v, want errors %v", args, idle, body, want)
		}
		if err1, err2 := srv.Stop(), srv.Stop(); err1 != nil || err2 != nil {
			t.Errorf("Stop, twice: got %v, %v; want nil, nil", err1, err2)
		}
	}
	r := &fatalRecorder{TB: t}
	func() {
		defer func() { recover() }() // fatalRecorder.Fatalf stops Start, as t.Fatalf would
		Start(r, func(context.Context, []string, io.Writer) error {
			return errors.New("flag provided but not defined: -addr")
		})
	}()
	if !strings.Contains(r.msg, "returned flag provided but not defined: -addr before it logged the address") {
		t.Errorf("got %q, want the test failed with run's error", r.msg)
	}
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
