package platform

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/icecreamcorp/go-cancellation-workshop/internal/leakcheck"
)

// These tests call Serve in the test process, and end its ctx.

func TestShutdownWhenTheContextEnds(t *testing.T) {
	begun(t, "Serve", serveEnded)
	leakcheck.Check(t)
	for _, tc := range []struct {
		name    string
		grace   time.Duration
		rest    string // the upload's second half, sent once ctx has ended ("": never)
		wantErr error  // Serve's
	}{
		{name: "upload finishes", grace: patience, rest: "second half", wantErr: nil},
		{name: "grace runs out", grace: 50 * time.Millisecond, rest: "", wantErr: context.DeadlineExceeded},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.WithValue(context.Background(), shopKey{}, "Ice Cream Corp"))
			defer cancel()
			reqs, finished := make(chan *http.Request, 1), make(chan time.Time, 1)
			ln := &watchedListener{Listener: loopback(t), closed: make(chan struct{})}
			served := serve(t, ctx, ln, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				reqs <- r
				body, _ := io.ReadAll(r.Body)
				fmt.Fprintf(w, "got %d bytes", len(body))
				finished <- time.Now()
			}), tc.grace)
			upload := send(t, ln.Addr().String(), "POST / HTTP/1.1\r\nHost: shop.test\r\nContent-Length: 23\r\n\r\nfirst half, ")
			var r *http.Request
			select {
			case r = <-reqs:
			case <-time.After(patience):
				t.Fatalf("no request reached the handler %v after it was sent; Serve %s: serve h on ln", patience, served)
			}
			cancel()
			cancelled := time.Now()
			if tc.rest == "" {
				if served.await(tc.grace + graceSlack); !served.returned() || !errors.Is(served.err, tc.wantErr) {
					t.Errorf("Serve %s, a request running past the grace, %v; want an error that wraps context.DeadlineExceeded then: Shutdown on context.WithTimeout(context.WithoutCancel(ctx), grace), %%w", served, tc.grace)
				} else if took := served.start.Add(served.took).Sub(cancelled); took < tc.grace {
					t.Errorf("Serve returned %v after ctx ended; want the grace, %v, first: Shutdown on context.WithTimeout(context.WithoutCancel(ctx), grace)", took, tc.grace)
				}
				select {
				case <-r.Context().Done():
				case <-time.After(patience):
					t.Errorf("the request's context still live %v after the grace; want it ended: cancel the base context, or Server.Close", patience)
				}
				return
			}
			select {
			case <-ln.closed:
			case <-time.After(patience):
				t.Fatalf("the listener still open %v after ctx ended; want it closed: Server.Shutdown", patience)
			}
			if conn, err := net.DialTimeout("tcp", ln.Addr().String(), patience); err == nil {
				conn.Close()
				t.Errorf("a new connection after ctx ended: accepted, want refused: Server.Shutdown closes the listener")
			}
			select {
			case <-Stopping(r.Context()):
			default:
				if Stopping(r.Context()) == nil {
					t.Errorf("Stopping(r.Context()) = nil; want a channel: store a <-chan struct{} under stoppingKey{} (the signal context's Done())")
				} else {
					t.Errorf("Stopping(r.Context()) still open once ctx ended; want it closed: BaseContext carries the signal context's Done() under stoppingKey{}")
				}
			}
			if v, err := r.Context().Value(shopKey{}), r.Context().Err(); v != "Ice Cream Corp" || err != nil {
				t.Errorf("the request's context: value %v, %v after ctx ended; want Ice Cream Corp, <nil> until the grace is over: base it on context.WithoutCancel(ctx)", v, err)
			}
			fmt.Fprint(upload, tc.rest)
			if got, err := answer(upload); got != "200 got 23 bytes" {
				t.Fatalf("POST / in flight when ctx ended: got %q, %v; want it answered: Shutdown on a context of its own, not Close", got, err)
			}
			if served.await(patience); !served.returned() || served.err != nil {
				t.Fatalf("Serve %s once its last request finished; want nil: http.ErrServerClosed is no failure", served)
			}
			if last := <-finished; served.start.Add(served.took).Before(last) {
				t.Errorf("Serve returned before its last request finished; want it to wait: Server.Shutdown, given a context that has not ended")
			}
		})
	}

	t.Run("serving fails", func(t *testing.T) {
		ln := loopback(t)
		ln.Close()
		served := serve(t, context.Background(), ln, http.NotFoundHandler(), time.Second)
		if served.await(patience); !served.returned() || served.err == nil {
			t.Errorf("Serve on a closed listener %s; want http.Server.Serve's error at once: wait for it as well as for the signal", served)
		}
	})

	t.Run("idle connections", func(t *testing.T) {
		defer func(d, r time.Duration) { idleTimeout, readTimeout = d, r }(idleTimeout, readTimeout)
		const short, long = 50 * time.Millisecond, time.Minute
		for _, c := range []struct {
			sent       string
			idle, read time.Duration // the one that must close the connection is short
			fix        string
		}{
			{sent: "GET / HTTP/1.1\r\nHost: shop.test\r\n\r\n", idle: short, read: long, fix: "IdleTimeout"},                      // then nothing more
			{sent: "GET / HTTP/1.1\r\nHost: shop.test\r\n\r\nGET", idle: short, read: long, fix: "IdleTimeout"},                   // then 3 bytes of the next
			{sent: "GET / HTTP/1.1\r\nHost: shop.test\r\nContent-Length: 9\r\n\r\n", idle: long, read: short, fix: "ReadTimeout"}, // and not its body
		} {
			idleTimeout, readTimeout = c.idle, c.read
			ctx, cancel := context.WithCancel(context.Background())
			ln := loopback(t)
			served := serve(t, ctx, ln, http.NotFoundHandler(), time.Second)
			conn := send(t, ln.Addr().String(), c.sent)
			conn.SetDeadline(time.Now().Add(short + time.Second))
			got, err := answer(conn)
			if err == nil {
				_, err = conn.Read(make([]byte, 1))
			}
			if !errors.Is(err, io.EOF) {
				t.Errorf("a connection that sent %q, then waited: got %q, then %v; want it answered and closed: http.Server.%s", c.sent, got, err, c.fix)
			}
			cancel()
			served.await(patience) // before the next idleTimeout: serve's clean-up checks it returned
		}
	})
}

// serve runs Serve on ln in a goroutine of its own. The test ends ctx; its
// end waits for Serve.
func serve(t *testing.T, ctx context.Context, ln net.Listener, h http.Handler, grace time.Duration) *bgCall[struct{}] {
	t.Helper()
	served := goCall(func() (struct{}, error) {
		defer ln.Close() // if Serve returned early, the test's connections fail at once
		return struct{}{}, Serve(ctx, ln, h, grace)
	})
	t.Cleanup(func() {
		if served.await(patience); !served.returned() {
			t.Errorf("Serve still running %v after its test ended", patience)
		}
	})
	return served
}

// watchedListener closes closed once it is closed.
type watchedListener struct {
	net.Listener
	closed chan struct{}
	once   sync.Once
}

func (l *watchedListener) Close() error {
	err := l.Listener.Close()
	l.once.Do(func() { close(l.closed) })
	return err
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
