package platform

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/icecreamcorp/go-cancellation-workshop/internal/leakcheck"
)

func TestShutdownWhenTheContextEnds(t *testing.T) {
	begun(t, "Serve", serveEnded)
	leakcheck.Check(t)

	t.Run("context values", func(t *testing.T) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatalf("listening on loopback: %v", err)
		}
		// The shop's name is a value of Serve's context, which its requests'
		// contexts keep.
		ctx, cancel := context.WithCancel(context.WithValue(context.Background(), shopKey{}, "Ice Cream Corp"))
		defer cancel()
		served := make(chan error, 1)
		go func() {
			served <- Serve(ctx, ln, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				fmt.Fprintf(w, "open: %v", r.Context().Value(shopKey{}))
			}), time.Second)
		}()
		transport := &http.Transport{}
		defer transport.CloseIdleConnections()
		client := &http.Client{Transport: transport, Timeout: patience}
		answer := make(chan string, 1)
		go func() {
			resp, err := client.Get("http://" + ln.Addr().String() + "/")
			if err != nil {
				answer <- err.Error()
				return
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			answer <- fmt.Sprintf("%d %s", resp.StatusCode, body)
		}()

		select {
		case got := <-answer:
			if got == "200 open: <nil>" {
				assert.Fail(t, "GET / answered 200, but its request's context had lost a value that Serve's ctx carries; want every request's context to keep ctx's values "+
					"(task 6: build the base context on ctx — context.WithoutCancel(ctx) keeps its values and drops only its cancellation; context.Background() has none)")
			} else {
				assert.Equal(t, "200 open: Ice Cream Corp", got, "GET / from Serve's handler, which answers with a value of its request's context (task 6: serve h on ln with an http.Server whose BaseContext keeps ctx's values)")
			}
		case err := <-served:
			ln.Close() // the request in flight fails
			<-answer
			assert.Fail(t, fmt.Sprintf("Serve returned %v before it answered a request; want it to serve h on ln until its context ends (task 6: run http.Server.Serve(ln) in a goroutine, and wait for the signal's context)", err))
			return
		}

		cancel()
		select {
		case err := <-served:
			assert.NoError(t, err, "Serve's result once its context ended, with no request in flight; want nil: a shutdown is not a failure, and http.ErrServerClosed says only that it happened (task 6)")
		case <-time.After(patience):
			assert.Fail(t, fmt.Sprintf("Serve was still running %v after its context was cancelled; want it to shut down when ctx ends, as it does on a signal (task 6: derive the signal's context from ctx — signal.NotifyContext(ctx, …) — not from context.Background())", patience))
		}
	})

	t.Run("grace runs out", func(t *testing.T) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatalf("listening on loopback: %v", err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		const grace = 50 * time.Millisecond
		started := make(chan struct{}, 1)
		ended := make(chan error, 1)
		release := make(chan struct{}) // ends the handler when the test does
		served := make(chan error, 1)
		go func() {
			served <- Serve(ctx, ln, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				select {
				case started <- struct{}{}:
				default:
				}
				select {
				case <-r.Context().Done():
					ended <- context.Cause(r.Context())
				case <-release:
				}
			}), grace)
		}()
		transport := &http.Transport{}
		defer transport.CloseIdleConnections()
		client := &http.Client{Transport: transport, Timeout: 2 * patience}
		answered := make(chan struct{})
		go func() {
			defer close(answered)
			if resp, err := client.Get("http://" + ln.Addr().String() + "/"); err == nil {
				resp.Body.Close()
			}
		}()
		defer func() {
			close(release)
			cancel()
			select {
			case <-served:
			case <-time.After(patience):
				t.Errorf("Serve still had not returned %v after its handler did", patience)
			}
			ln.Close() // refuses a request that no Serve accepted
			<-answered // bounded by the client's timeout
		}()

		select {
		case <-started:
		case err := <-served:
			served <- err // for the deferred wait
			assert.Fail(t, fmt.Sprintf("Serve returned %v before its handler started; want it to serve h on ln until its context ends (task 6)", err))
			return
		case <-time.After(patience):
			assert.Fail(t, fmt.Sprintf("the handler had not started %v after a request was sent (task 6: serve h on ln with an http.Server)", patience))
			return
		}
		cancel()
		select {
		case err := <-served:
			served <- err // for the deferred wait
			assert.ErrorIs(t, err, context.DeadlineExceeded, "Serve's result once its context ended and the grace of %v ran out, a request still running, was %v; "+
				"want an error that wraps context.DeadlineExceeded, so that the caller knows the shutdown was not clean (task 6: Shutdown, on a context whose deadline is the grace, returns context.DeadlineExceeded when a request outlives it — wrap it with %%w; context canceled or nil here means Shutdown's context was not that one, or the request ended too soon)", grace, err)
		case <-time.After(patience):
			assert.Fail(t, fmt.Sprintf("Serve was still running %v after its context was cancelled, with a grace of %v and a request that never ends by itself; "+
				"want it to stop waiting once the grace is over (task 6: give Shutdown a deadline: context.WithTimeout(context.WithoutCancel(ctx), grace))", patience, grace))
			return
		}
		select {
		case <-ended:
		case <-time.After(patience):
			assert.Fail(t, fmt.Sprintf("the request's context, still running when the grace of %v was over, had not ended %v after Serve returned; "+
				"want it cancelled then, so that its handler stops (task 6: when Shutdown returns with the grace over, cancel what is left: Server.Close, or cancel the base context)", grace, patience))
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
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatalf("listening on loopback: %v", err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		served := make(chan error, 1)
		go func() {
			err := Serve(ctx, ln, http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}), time.Second)
			ln.Close() // if Serve returned early, the test's connection fails at once
			served <- err
		}()
		conn, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			cancel()
			t.Fatalf("connecting to Serve: %v (task 6: serve h on ln with an http.Server)", err)
		}
		conn.SetDeadline(time.Now().Add(short + time.Second))
		fmt.Fprint(conn, c.sent)
		br := bufio.NewReader(conn)
		resp, err := http.ReadResponse(br, nil)
		if err == nil {
			resp.Body.Close()
			_, err = br.ReadByte()
		}
		conn.Close()
		assert.ErrorIs(t, err, io.EOF, "a connection that sent %q, then waited: read %v; want Serve to answer and close it "+
			"(task 6: set http.Server.%s — ReadHeaderTimeout does not cover that wait)", c.sent, err, c.fix)
		cancel()
		select {
		case <-served:
		case <-time.After(patience):
			t.Fatalf("Serve was still running %v after its context was cancelled", patience)
		}
	}
}
