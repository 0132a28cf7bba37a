package memnet

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/icecreamcorp/go-cancellation-workshop/internal/leakcheck"
)

type ctxKey struct{}

// get sends GET url through client with ctx, gives up after timeout, and
// reads the whole body.
func get(ctx context.Context, client *http.Client, url string, timeout time.Duration) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	resp, err := client.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return string(b), err
}

// The handler sees only what crosses the wire: its request's context ends
// with Canceled, at the instant the client gives up, and carries neither the
// client's deadline nor its values; a cancelled request's connection is
// closed; each connection comes from a loopback port of its own. A closed
// server refuses connections.
func TestWhatCrossesTheWire(t *testing.T) {
	leakcheck.Check(t)
	synctest.Test(t, func(t *testing.T) {
		type seen struct {
			err      error
			deadline bool
			value    any
			after    time.Duration
			remote   string
		}
		out := make(chan seen, 4)
		srv := Serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			start := time.Now()
			_, deadline := r.Context().Deadline()
			select {
			case <-r.Context().Done():
			case <-time.After(10 * time.Second):
			}
			out <- seen{context.Cause(r.Context()), deadline, r.Context().Value(ctxKey{}), time.Since(start), r.RemoteAddr}
		}))
		ctx := context.WithValue(t.Context(), ctxKey{}, "the client's value")
		for i, want := range []struct {
			timeout time.Duration
			err     error // the client's
			seen    seen
		}{
			{time.Minute, nil, seen{nil, false, nil, 10 * time.Second, "127.0.0.1:49152"}},
			{time.Minute, nil, seen{nil, false, nil, 10 * time.Second, "127.0.0.1:49152"}}, // the connection kept alive
			{time.Second, context.DeadlineExceeded, seen{context.Canceled, false, nil, time.Second, "127.0.0.1:49152"}},
			{time.Minute, nil, seen{nil, false, nil, 10 * time.Second, "127.0.0.1:49153"}}, // a new one
		} {
			if _, err := get(ctx, srv.Client(), srv.URL+"/stock", want.timeout); !errors.Is(err, want.err) {
				t.Fatalf("request %d: got %v, want %v", i+1, err, want.err)
			}
			if got := <-out; !errors.Is(got.err, want.seen.err) || got.deadline || got.value != nil || got.after != want.seen.after || got.remote != want.seen.remote {
				t.Errorf("request %d: the handler saw %+v, want %+v", i+1, got, want.seen)
			}
		}
		if err := srv.Close(); err != nil {
			t.Fatal(err)
		}
		_, err := get(ctx, srv.Client(), srv.URL, time.Minute)
		if opErr := (*net.OpError)(nil); !errors.As(err, &opErr) || !strings.Contains(err.Error(), "connection refused") {
			t.Errorf("GET from a closed server: got %v, want a *net.OpError, connection refused", err)
		}
	})
}

// A body streams as it is written and stalls when the handler does. A
// net.Pipe has no buffer: a handler writing to a client that reads nothing
// blocks at once, as it would once a socket's buffers are full.
func TestBodies(t *testing.T) {
	leakcheck.Check(t)
	synctest.Test(t, func(t *testing.T) {
		wrote := make(chan error, 1)
		srv := Serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/stall" {
				io.WriteString(w, `{"stock":[`)
				w.(http.Flusher).Flush()
				<-r.Context().Done()
				return
			}
			_, err := io.Copy(w, strings.NewReader(strings.Repeat("x", 10<<20)))
			wrote <- err
		}))
		start := time.Now()
		if b, err := get(t.Context(), srv.Client(), srv.URL+"/stall", time.Second); b != `{"stock":[` || !errors.Is(err, context.DeadlineExceeded) || time.Since(start) != time.Second {
			t.Errorf("reading a stalled body: got %q, %v after %v; want the start, then the deadline after 1s", b, err, time.Since(start))
		}
		resp, err := srv.Client().Get(srv.URL)
		if err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		if len(wrote) > 0 {
			t.Fatalf("the handler wrote 10 MiB to a client that read none (%v), want its writes blocked", <-wrote)
		}
		resp.Body.Close()
		synctest.Wait()
		if len(wrote) == 0 || <-wrote == nil {
			t.Fatal("the client closed the body: got the handler still writing, or done without an error; want its write to fail")
		}
	})
}

// Over h2c a client's cancel is one RST_STREAM frame: the handler's context
// ends at that instant, and the connection carries the next request.
func TestH2CCancelResetsOnlyItsStream(t *testing.T) {
	leakcheck.Check(t)
	synctest.Test(t, func(t *testing.T) {
		ended := make(chan time.Duration, 2)
		srv := ServeH2C(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			start := time.Now()
			select {
			case <-r.Context().Done():
			case <-time.After(10 * time.Second):
			}
			ended <- time.Since(start)
		}))
		var sent bytes.Buffer // what the client wrote, frame by frame
		var mu sync.Mutex
		dial := srv.tr.DialContext
		srv.tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
			c, err := dial(ctx, network, addr)
			return tapped{c, &sent, &mu}, err
		}

		if _, err := get(t.Context(), srv.Client(), srv.URL, time.Second); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("a request given 1s: got %v, want context.DeadlineExceeded", err)
		}
		if got := <-ended; got != time.Second {
			t.Errorf("the handler's context ended %v after the request arrived, want 1s", got)
		}
		if _, err := get(t.Context(), srv.Client(), srv.URL, time.Minute); err != nil {
			t.Fatalf("a request after it: %v", err)
		}
		<-ended
		synctest.Wait()
		if srv.Conns() != 1 {
			t.Errorf("connections for a cancelled request and the next: got %d, want 1", srv.Conns())
		}
		mu.Lock()
		defer mu.Unlock()
		if got := resets(sent.Bytes()); !slices.Equal(got, []string{"RST_STREAM 1 CANCEL"}) {
			t.Errorf("the client's reset frames: got %q, want one RST_STREAM CANCEL on stream 1", got)
		}
	})
}

// tapped is a connection whose writes are kept in w.
type tapped struct {
	net.Conn
	w  *bytes.Buffer
	mu *sync.Mutex
}

func (c tapped) Write(p []byte) (int, error) {
	c.mu.Lock()
	c.w.Write(p)
	c.mu.Unlock()
	return c.Conn.Write(p)
}

// resets lists the RST_STREAM and GOAWAY frames in b, an HTTP/2 client's
// bytes (RFC 9113 §4.1: after the 24-byte preface, each frame is a 24-bit
// length, a type, flags, a 31-bit stream id and its payload).
func resets(b []byte) []string {
	b = b[min(len(b), len("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n")):]
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
