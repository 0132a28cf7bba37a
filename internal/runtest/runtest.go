// Package runtest starts a workshop service the way `go run` does — through
// its run function, flags and all — on a free port of 127.0.0.1, so that a
// test can talk to it over a real TCP connection and then stop it as Ctrl-C
// would.
//
// Every service of the workshop has the same shape:
//
//	func run(ctx context.Context, args []string, stdout io.Writer) error
//
// It logs "addr=127.0.0.1:PORT" once it listens, serves until ctx is
// cancelled, and returns nil after a graceful shutdown.
//
//	srv := runtest.Start(t, run, "-stock-url", stockURL)
//	resp := srv.Get(t, "/menu")
//	…
//	assert.NoError(t, srv.Stop(), "run's result after a graceful shutdown")
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
	Addr   string       // host:port it listens on
	Client *http.Client // a client with a transport of its own, closed when the test ends

	cancel  context.CancelFunc
	done    chan error // run's result
	log     *logBuffer
	stopped bool
	result  error
}

// Start calls run with args and "-addr 127.0.0.1:0" on a goroutine, and
// returns once the service has logged the address it listens on. The service
// is stopped, if the test has not stopped it, when the test ends. Call
// leakcheck.Check before Start.
func Start(t testing.TB, run RunFunc, args ...string) *Server {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	log := &logBuffer{addr: make(chan string, 1)}
	s := &Server{cancel: cancel, done: make(chan error, 1), log: log}
	go func() { s.done <- run(ctx, append(args, "-addr", "127.0.0.1:0"), log) }()

	select {
	case s.Addr = <-log.addr:
	case err := <-s.done:
		cancel()
		t.Fatalf("run(%q) returned %v before it logged the address it listens on; its log:\n%s", args, err, log)
	case <-time.After(patience):
		cancel()
		t.Fatalf("waited %v for run(%q) to log \"addr=127.0.0.1:PORT\"; its log:\n%s", patience, args, log)
	}

	transport := &http.Transport{}
	s.Client = &http.Client{Transport: transport, Timeout: patience}
	t.Cleanup(func() {
		transport.CloseIdleConnections()
		if err := s.Stop(); err != nil {
			t.Errorf("stopping the service at the end of the test: %v", err)
		}
	})
	return s
}

// Get sends GET path to the service and returns the response, its body
// read and closed. It fails the test if the request fails.
func (s *Server) Get(t testing.TB, path string) (*http.Response, string) {
	t.Helper()
	resp, err := s.Client.Get("http://" + s.Addr + path)
	if err != nil {
		t.Fatalf("GET %s from the running service: %v; its log:\n%s", path, err, s.log)
		return nil, ""
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("reading the answer to GET %s: %v", path, err)
	}
	return resp, string(body)
}

// Stop cancels run's context, as Ctrl-C does through signal.NotifyContext,
// and returns run's result: nil after a graceful shutdown. It returns an
// error if run is still serving after 10s. Calling it again returns the
// same result.
func (s *Server) Stop() error {
	if s.stopped {
		return s.result
	}
	s.stopped = true
	s.cancel()
	select {
	case s.result = <-s.done:
	case <-time.After(patience):
		s.result = fmt.Errorf("run was still serving %v after its context was cancelled; want a graceful shutdown; its log:\n%s", patience, s.log)
	}
	return s.result
}

// logBuffer is run's stdout: it keeps what was logged and spots the address.
type logBuffer struct {
	mu   sync.Mutex
	b    strings.Builder
	addr chan string // receives the first address logged
	sent bool
}

var addrRE = regexp.MustCompile(`addr=(127\.0\.0\.1:\d+)`)

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.b.Write(p)
	if m := addrRE.FindSubmatch(p); m != nil && !l.sent {
		l.sent = true
		l.addr <- string(m[1])
	}
	return len(p), nil
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
