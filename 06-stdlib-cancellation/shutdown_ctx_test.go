package platform

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/icecreamcorp/go-cancellation-workshop/internal/leakcheck"
)

// These tests call Serve in the test process, and end its ctx.

func TestShutdownWhenTheContextEnds(t *testing.T) {
	begun(t, "Serve", serveEnded)
	leakcheck.Check(t)

	t.Run("context values", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.WithValue(context.Background(), shopKey{}, "Ice Cream Corp"))
		defer cancel()
		addr, served := serveLoopback(t, ctx, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprintf(w, "open: %v", r.Context().Value(shopKey{}))
		}), time.Second)
		got, err := answer(send(t, addr, "GET / HTTP/1.1\r\nHost: shop.test\r\nConnection: close\r\n\r\n"))
		if want := "200 open: Ice Cream Corp"; got != want {
			t.Errorf("GET /: got %q (%v), want %q: serve h until ctx ends, on a base context that keeps ctx's values: context.WithoutCancel(ctx)", got, err, want)
		}
		cancel()
		if served.await(patience); !served.returned() || served.err != nil {
			t.Errorf("Serve %s once ctx ended; want nil at once: signal.NotifyContext(ctx, …); http.ErrServerClosed is no failure", served)
		}
	})

	t.Run("grace runs out", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		const grace = 50 * time.Millisecond
		started, ended, release := make(chan struct{}), make(chan error, 1), make(chan struct{})
		defer close(release) // ends the handler when the test does
		addr, served := serveLoopback(t, ctx, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			close(started)
			select {
			case <-r.Context().Done():
				ended <- context.Cause(r.Context())
			case <-release:
			}
		}), grace)
		send(t, addr, "GET / HTTP/1.1\r\nHost: shop.test\r\n\r\n")
		select {
		case <-started:
		case <-time.After(patience):
			t.Fatalf("the handler had not started %v after a request; Serve %s: serve h on ln", patience, served)
		}
		cancelled := time.Now()
		cancel()
		if served.await(grace + graceSlack); !served.returned() || !errors.Is(served.err, context.DeadlineExceeded) {
			t.Errorf("Serve %s, a request running past the grace, %v; want an error that wraps context.DeadlineExceeded then: Shutdown on context.WithTimeout(context.WithoutCancel(ctx), grace), %%w", served, grace)
		} else if took := served.start.Add(served.took).Sub(cancelled); took < grace {
			t.Errorf("Serve returned %v after ctx ended; want the grace, %v, first: Shutdown on context.WithTimeout(context.WithoutCancel(ctx), grace)", took, grace)
		}
		select {
		case <-ended:
		case <-time.After(patience):
			t.Errorf("the request's context still live %v after the grace; want it ended: cancel the base context, or Server.Close", patience)
		}
	})

	t.Run("serving fails", func(t *testing.T) {
		ln := loopback(t)
		ln.Close()
		served := goCall(func() (struct{}, error) {
			return struct{}{}, Serve(context.Background(), ln, http.NotFoundHandler(), time.Second)
		})
		if served.await(patience); !served.returned() || served.err == nil {
			t.Errorf("Serve on a closed listener %s; want http.Server.Serve's error at once: wait for it as well as for the signal", served)
		}
	})
}

func TestShutdownIdleConnections(t *testing.T) {
	begun(t, "Serve", serveEnded)
	leakcheck.Check(t)
	defer func(d, r time.Duration) { idleTimeout, readTimeout = d, r }(idleTimeout, readTimeout)
	const short, long = 50 * time.Millisecond, time.Minute
	for _, c := range []struct {
		sent       string
		idle, read time.Duration // the one that must close the connection is short
		fix        string
	}{
		{"GET / HTTP/1.1\r\nHost: shop.test\r\n\r\n", short, long, "IdleTimeout"},                      // then nothing more
		{"GET / HTTP/1.1\r\nHost: shop.test\r\n\r\nGET", short, long, "IdleTimeout"},                   // then 3 bytes of the next
		{"GET / HTTP/1.1\r\nHost: shop.test\r\nContent-Length: 9\r\n\r\n", long, short, "ReadTimeout"}, // and not its body
	} {
		idleTimeout, readTimeout = c.idle, c.read
		ctx, cancel := context.WithCancel(context.Background())
		addr, served := serveLoopback(t, ctx, http.NotFoundHandler(), time.Second)
		conn := send(t, addr, c.sent)
		conn.SetDeadline(time.Now().Add(short + time.Second))
		got, err := answer(conn)
		if err == nil {
			_, err = conn.Read(make([]byte, 1))
		}
		if !errors.Is(err, io.EOF) {
			t.Errorf("a connection that sent %q, then waited: got %q, then %v; want it answered and closed: http.Server.%s", c.sent, got, err, c.fix)
		}
		cancel()
		if served.await(patience); !served.returned() {
			t.Fatalf("Serve still running %v after ctx ended", patience)
		}
	}
}

// serveLoopback runs Serve on a loopback port in a goroutine of its own, and
// returns the port's address. The test ends ctx; its end waits for Serve.
func serveLoopback(t *testing.T, ctx context.Context, h http.Handler, grace time.Duration) (string, *bgCall[struct{}]) {
	t.Helper()
	ln := loopback(t)
	served := goCall(func() (struct{}, error) {
		defer ln.Close() // if Serve returned early, the test's connections fail at once
		return struct{}{}, Serve(ctx, ln, h, grace)
	})
	t.Cleanup(func() {
		if served.await(patience); !served.returned() {
			t.Errorf("Serve still running %v after its test ended", patience)
		}
	})
	return ln.Addr().String(), served
}

// send opens a connection to addr, closed when the test ends, and sends text.
func send(t *testing.T, addr, text string) net.Conn {
	t.Helper()
	conn, err := net.DialTimeout("tcp", addr, patience)
	if err != nil {
		t.Fatalf("connecting to %s: %v", addr, err)
	}
	t.Cleanup(func() { conn.Close() })
	conn.SetDeadline(time.Now().Add(2 * patience))
	fmt.Fprint(conn, text)
	return conn
}

// answer reads a response from conn: "STATUS BODY".
func answer(conn net.Conn) (string, error) {
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return fmt.Sprintf("%d %s", resp.StatusCode, body), err
}

// serveEnded calls Serve with a context that has ended, for begun.
func serveEnded() error {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil
	}
	defer ln.Close()
	return Serve(ended(), ln, http.NotFoundHandler(), time.Second)
}

// shopKey is the key of a value that Serve's ctx carries.
type shopKey struct{}
