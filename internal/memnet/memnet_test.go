package memnet

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
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
	proto       string
	remote      string
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
		out <- seen{context.Cause(r.Context()), hasDeadline, r.Context().Value(ctxKey{}), time.Since(start), r.Proto, r.RemoteAddr}
	})
}

func TestServerSeesOnlyWhatCrossesTheWire(t *testing.T) {
	for _, tc := range []struct {
		proto string
		serve func(testing.TB, http.Handler) *Server
	}{{"HTTP/1.1", Serve}, {"HTTP/2.0", ServeH2C}} {
		t.Run(tc.proto, func(t *testing.T) {
			leakcheck.Check(t)
			synctest.Test(t, func(t *testing.T) {
				out := make(chan seen, 1)
				srv := tc.serve(t, watcher(time.Hour, out))

				ctx := context.WithValue(t.Context(), ctxKey{}, "the client's value")
				ctx, cancel := context.WithTimeout(ctx, time.Second)
				defer cancel()
				req, err := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/stock", nil)
				require.NoError(t, err)
				_, err = srv.Client().Do(req)
				require.ErrorIs(t, err, context.DeadlineExceeded, "the client's own error is its deadline")

				synctest.Wait()
				got := <-out
				assert.Equal(t, tc.proto, got.proto)
				assert.Equal(t, "127.0.0.1:49152", got.remote, "r.RemoteAddr is the client's end of a loopback TCP connection")
				assert.ErrorIs(t, got.err, context.Canceled,
					"the server's request context ended with %v; over HTTP it can only learn that the client left", got.err)
				assert.False(t, got.hasDeadline, "the server's request context has a deadline; the client's deadline must not travel")
				assert.Nil(t, got.value, "the server's request context carries the client's value %v", got.value)
				assert.Equal(t, time.Second, got.after, "the server noticed the client leave %v after the request arrived; want at once, at 1s", got.after)
			})
		})
	}
}

// get sends GET url through client, gives up after timeout, and reads the
// whole answer.
func get(t *testing.T, client *http.Client, url string, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(t.Context(), timeout)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	_, err = io.Copy(io.Discard, resp.Body)
	return err
}

func TestACancelledRequestClosesItsConnection(t *testing.T) {
	leakcheck.Check(t)
	synctest.Test(t, func(t *testing.T) {
		out := make(chan seen, 4)
		srv := Serve(t, watcher(10*time.Second, out))
		client := srv.Client()

		require.NoError(t, get(t, client, srv.URL, time.Minute), "a request that waits long enough")
		require.NoError(t, get(t, client, srv.URL, time.Minute), "a second one")
		assert.Equal(t, 1, srv.Conns(), "two requests one after the other share a kept-alive connection")

		require.ErrorIs(t, get(t, client, srv.URL, time.Second), context.DeadlineExceeded, "a request that gives up")
		require.NoError(t, get(t, client, srv.URL, time.Minute), "a request after it")
		assert.Equal(t, 2, srv.Conns(), "the cancelled request's connection is closed: the next request dials a new one")
		var remotes []string
		for range 4 {
			got := <-out
			assert.Equal(t, "HTTP/1.1", got.proto)
			remotes = append(remotes, got.remote)
		}
		assert.Equal(t, []string{"127.0.0.1:49152", "127.0.0.1:49152", "127.0.0.1:49152", "127.0.0.1:49153"}, remotes,
			"r.RemoteAddr is the client's end of a loopback TCP connection, a port of its own per connection")
	})
}

func TestH2CCancelResetsOnlyItsStream(t *testing.T) {
	leakcheck.Check(t)
	synctest.Test(t, func(t *testing.T) {
		out := make(chan seen, 2)
		srv := ServeH2C(t, watcher(10*time.Second, out))
		sent := &tap{}
		dial := srv.tr.DialContext
		srv.tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
			c, err := dial(ctx, network, addr)
			return &tapped{c, sent}, err
		}
		client := srv.Client()

		require.ErrorIs(t, get(t, client, srv.URL, time.Second), context.DeadlineExceeded, "a request that gives up")
		got := <-out
		assert.ErrorIs(t, got.err, context.Canceled, "the handler's request context ends when the client gives up")
		assert.Equal(t, time.Second, got.after, "the server noticed the client leave %v after the request arrived; want at once, at 1s", got.after)

		require.NoError(t, get(t, client, srv.URL, time.Minute), "a request after it")
		<-out
		assert.Equal(t, 1, srv.Conns(), "the cancelled request's connection lives on: the next request is its second stream")
		synctest.Wait()
		assert.Equal(t, []string{"RST_STREAM 1 CANCEL"}, sent.resets(), "the client's cancel is one RST_STREAM frame, on the first request's stream")
	})
}

// tap keeps every byte the client wrote to its connections.
type tap struct {
	mu sync.Mutex
	b  []byte
}

// tapped is a connection whose writes the tap keeps.
type tapped struct {
	net.Conn
	tap *tap
}

func (c *tapped) Write(p []byte) (int, error) {
	c.tap.mu.Lock()
	c.tap.b = append(c.tap.b, p...)
	c.tap.mu.Unlock()
	return c.Conn.Write(p)
}

// resets lists the RST_STREAM and GOAWAY frames the client sent on its one
// HTTP/2 connection (RFC 9113 §4.1: after the 24-byte preface, each frame
// is a 24-bit length, a type, flags, a 31-bit stream id and the payload).
func (t *tap) resets() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	b := t.b[min(len(t.b), len(http2Preface)):]
	var frames []string
	for len(b) >= 9 {
		n := int(b[0])<<16 | int(b[1])<<8 | int(b[2])
		kind, stream := b[3], binary.BigEndian.Uint32(b[5:9])&(1<<31-1)
		payload := b[9:min(len(b), 9+n)]
		switch {
		case kind == 0x3 && len(payload) == 4:
			code := map[uint32]string{0x0: "NO_ERROR", 0x8: "CANCEL"}[binary.BigEndian.Uint32(payload)]
			frames = append(frames, fmt.Sprintf("RST_STREAM %d %s", stream, code))
		case kind == 0x7:
			frames = append(frames, "GOAWAY")
		}
		b = b[min(len(b), 9+n):]
	}
	return frames
}

const http2Preface = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"

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
