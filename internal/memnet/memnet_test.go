package memnet

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/icecreamcorp/go-cancellation-workshop/internal/leakcheck"
)

type ctxKey struct{}

// seen is what the handler observed of its own request's context.
type seen struct {
	err         error
	hasDeadline bool
	value       any
	after       time.Duration
}

// watcher is a handler that waits for its request's context to end (or for
// wait to pass) and reports what it saw.
func watcher(wait time.Duration, out chan<- seen) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		_, hasDeadline := r.Context().Deadline()
		select {
		case <-r.Context().Done():
		case <-time.After(wait):
			io.WriteString(w, "done")
		}
		out <- seen{context.Cause(r.Context()), hasDeadline, r.Context().Value(ctxKey{}), time.Since(start)}
	})
}

func TestServerSeesOnlyWhatCrossesTheWire(t *testing.T) {
	leakcheck.Check(t)
	synctest.Test(t, func(t *testing.T) {
		out := make(chan seen, 1)
		srv := Serve(t, watcher(time.Hour, out))

		ctx := context.WithValue(t.Context(), ctxKey{}, "the client's value")
		ctx, cancel := context.WithTimeout(ctx, time.Second)
		defer cancel()
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/stock", nil)
		require.NoError(t, err)
		_, err = srv.Client().Do(req)
		require.ErrorIs(t, err, context.DeadlineExceeded, "the client's own error is its deadline")

		synctest.Wait()
		got := <-out
		assert.ErrorIs(t, got.err, context.Canceled,
			"the server's request context ended with %v; over HTTP it can only learn that the connection closed", got.err)
		assert.NotErrorIs(t, got.err, context.DeadlineExceeded, "no deadline crosses an HTTP/1.1 connection")
		assert.False(t, got.hasDeadline, "the server's request context has a deadline; the client's deadline must not travel")
		assert.Nil(t, got.value, "the server's request context carries the client's value %v", got.value)
		assert.Equal(t, time.Second, got.after, "the server noticed the client leave %v after the request arrived; want at once, at 1s", got.after)
	})
}

func TestACancelledRequestClosesItsConnection(t *testing.T) {
	leakcheck.Check(t)
	synctest.Test(t, func(t *testing.T) {
		out := make(chan seen, 4)
		srv := Serve(t, watcher(10*time.Second, out))
		client := srv.Client()
		get := func(timeout time.Duration) error {
			ctx, cancel := context.WithTimeout(t.Context(), timeout)
			defer cancel()
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL, nil)
			resp, err := client.Do(req)
			if err != nil {
				return err
			}
			defer resp.Body.Close()
			_, err = io.Copy(io.Discard, resp.Body)
			return err
		}

		require.NoError(t, get(time.Minute), "a request that waits long enough")
		require.NoError(t, get(time.Minute), "a second one")
		assert.Equal(t, 1, srv.Conns(), "two requests one after the other share a kept-alive connection")

		require.ErrorIs(t, get(time.Second), context.DeadlineExceeded, "a request that gives up")
		require.NoError(t, get(time.Minute), "a request after it")
		assert.Equal(t, 2, srv.Conns(), "the cancelled request's connection is closed: the next request dials a new one")
		for range 4 {
			<-out
		}
	})
}

func TestBodiesStreamAndStall(t *testing.T) {
	leakcheck.Check(t)
	synctest.Test(t, func(t *testing.T) {
		srv := Serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, `{"stock":[`)
			w.(http.Flusher).Flush()
			<-r.Context().Done()
		}))
		ctx, cancel := context.WithTimeout(t.Context(), time.Second)
		defer cancel()
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL, nil)
		resp, err := srv.Client().Do(req)
		require.NoError(t, err, "the headers arrive at once")
		defer resp.Body.Close()
		start := time.Now()
		b, err := io.ReadAll(resp.Body)
		assert.Equal(t, `{"stock":[`, string(b), "the start of the body arrives")
		assert.ErrorIs(t, err, context.DeadlineExceeded, "the rest never comes; reading ends with the deadline")
		assert.Equal(t, time.Second, time.Since(start), "reading the stalled body ends at the deadline")
	})
}

func TestAWriterToNobodyBlocksUntilTheClientLeaves(t *testing.T) {
	leakcheck.Check(t)
	synctest.Test(t, func(t *testing.T) {
		wrote := make(chan error, 1)
		srv := Serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_, err := io.Copy(w, strings.NewReader(strings.Repeat("x", 10<<20)))
			wrote <- err
		}))
		resp, err := srv.Client().Get(srv.URL)
		require.NoError(t, err)
		synctest.Wait()
		select {
		case err := <-wrote:
			t.Fatalf("the handler wrote 10 MiB to a client that read none of it (err %v); its writes must block, as they would once a socket's buffers are full", err)
		default:
		}
		resp.Body.Close()
		synctest.Wait()
		select {
		case err := <-wrote:
			assert.Error(t, err, "the handler's write fails once the client has hung up")
		default:
			t.Fatal("the handler is still writing after the client closed the body")
		}
	})
}

func TestAClosedServerRefusesConnections(t *testing.T) {
	leakcheck.Check(t)
	synctest.Test(t, func(t *testing.T) {
		srv := Serve(t, http.NotFoundHandler())
		require.NoError(t, srv.Close())
		_, err := srv.Client().Get(srv.URL)
		var opErr *net.OpError
		assert.True(t, errors.As(err, &opErr), "a request to a closed server fails to dial, with a *net.OpError: %v", err)
		assert.ErrorContains(t, err, "connection refused")
	})
}
