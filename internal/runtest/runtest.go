// Package runtest starts a workshop service as `go run` does, through its
// run function (it logs "addr=127.0.0.1:PORT" once it listens, serves until
// ctx ends, returns nil after a graceful shutdown), on a free port of
// 127.0.0.1, so that a test can talk to it over TCP and stop it as Ctrl-C would.
package runtest

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// RunFunc is a service's run function.
type RunFunc func(ctx context.Context, args []string, stdout io.Writer) error

// patience bounds every wait: for the service to listen, to answer, to stop.
const patience = 10 * time.Second

// Server is a service started by Start.
type Server struct {
	Addr string // host:port it listens on

	client *http.Client // with a transport of its own, closed when the test ends
	cancel context.CancelFunc
	done   chan error // run's result
	log    *logBuffer
	stop   func() error
}

// Start calls run with args and "-addr 127.0.0.1:0" on a goroutine, returns
// once it has logged its address, and stops it when the test ends.
func Start(t testing.TB, run RunFunc, args ...string) *Server {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	s := &Server{cancel: cancel, done: make(chan error, 1), log: &logBuffer{addr: make(chan string, 1)}}
	s.stop = sync.OnceValue(s.wait)
	go func() { s.done <- run(ctx, append(args, "-addr", "127.0.0.1:0"), s.log) }()
	select {
	case s.Addr = <-s.log.addr:
	case err := <-s.done:
		cancel()
		t.Fatalf("run(%q) returned %v before it logged the address it listens on; its log:\n%s", args, err, s.log)
	case <-time.After(patience):
		cancel()
		t.Fatalf("waited %v for run(%q) to log \"addr=127.0.0.1:PORT\"; its log:\n%s", patience, args, s.log)
	}
	transport := &http.Transport{}
	s.client = &http.Client{Transport: transport, Timeout: patience}
	t.Cleanup(func() {
		transport.CloseIdleConnections()
		if err := s.Stop(); err != nil {
			t.Errorf("stopping the service at the end of the test: %v", err)
		}
	})
	return s
}

// Get sends GET path to the service and returns the response and its body.
func (s *Server) Get(t testing.TB, path string) (*http.Response, string) {
	t.Helper()
	resp, err := s.client.Get("http://" + s.Addr + path)
	if err != nil {
		t.Fatalf("GET %s from the running service: %v; its log:\n%s", path, err, s.log)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("reading the answer to GET %s: %v", path, err)
	}
	return resp, string(body)
}

// Log is what run has logged so far.
func (s *Server) Log() string { return s.log.String() }

// Stop cancels run's context, as Ctrl-C does, and returns run's result, or an
// error if run still serves after patience; again, the same result.
func (s *Server) Stop() error { return s.stop() }

func (s *Server) wait() error {
	s.cancel()
	select {
	case err := <-s.done:
		return err
	case <-time.After(patience):
		return fmt.Errorf("run was still serving %v after its context was cancelled; want a graceful shutdown; its log:\n%s", patience, s.log)
	}
}

// logBuffer is run's stdout: it keeps what was logged and sends the first address logged to addr.
type logBuffer struct {
	mu   sync.Mutex
	b    strings.Builder
	addr chan string
}

var addrRE = regexp.MustCompile(`addr=(127\.0\.0\.1:\d+)`)

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.b.Write(p)
	if m := addrRE.FindSubmatch(p); m != nil {
		select {
		case l.addr <- string(m[1]):
		default: // not the first
		}
	}
	return len(p), nil
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
