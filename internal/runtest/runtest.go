// Package runtest starts a workshop service as `go run` does, through its
// run function (it logs "addr=127.0.0.1:PORT" once it listens, serves until
// ctx ends, returns nil after a graceful shutdown), on a free port of
// 127.0.0.1, so that a test can talk to it over TCP and stop it as Ctrl-C would.
package runtest

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
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

	client  *http.Client // with a transport of its own, closed when the test ends
	cancel  context.CancelFunc
	done    chan error // run's result
	log     *logBuffer
	stopped bool
	result  error
}

// Start calls run with args and "-addr 127.0.0.1:0" on a goroutine, returns
// once it has logged its address, and stops it when the test ends.
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
		return nil, ""
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("reading the answer to GET %s: %v", path, err)
	}
	return resp, string(body)
}

// Stop cancels run's context, as Ctrl-C does, and returns run's result, or an
// error if run still serves after patience; again, the same result.
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

// IdleConn sends GET path on a connection of its own, reads the answer, then
// sends "GET" and nothing more; it returns an error unless the service closes
// that connection within.
func (s *Server) IdleConn(t testing.TB, path string, within time.Duration) error {
	t.Helper()
	return s.closes(t, "GET "+path+" HTTP/1.1\r\nHost: "+s.Addr+"\r\n\r\n", "GET", patience, within,
		"a keep-alive connection that sent a request and then 3 bytes")
}

// BodyNeverSent sends GET path with a Content-Length of 1000 and no body; it
// returns an error unless the service answers and closes that connection within.
func (s *Server) BodyNeverSent(t testing.TB, path string, within time.Duration) error {
	t.Helper()
	return s.closes(t, "GET "+path+" HTTP/1.1\r\nHost: "+s.Addr+"\r\nContent-Length: 1000\r\n\r\n", "", within, within,
		"a request that declared a body and sent none")
}

func (s *Server) closes(t testing.TB, req, then string, answer, within time.Duration, what string) error {
	conn, err := net.DialTimeout("tcp", s.Addr, patience)
	if err != nil {
		t.Fatalf("connecting to the running service: %v", err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(answer))
	io.WriteString(conn, req)
	r := bufio.NewReader(conn)
	resp, err := http.ReadResponse(r, nil)
	if err != nil {
		return fmt.Errorf("%s: %v; want an answer, then the connection closed", what, err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	io.WriteString(conn, then)
	conn.SetReadDeadline(time.Now().Add(within))
	switch _, err := r.ReadByte(); {
	case err == nil:
		return fmt.Errorf("%s got a second answer; want its connection closed", what)
	case errors.Is(err, os.ErrDeadlineExceeded):
		return fmt.Errorf("%s was still open %v later", what, within)
	}
	return nil // the service closed the connection
}

// ServeFunc is a main.go's serve: srv on ln until ctx ends, then a shutdown
// with grace for the requests in flight.
type ServeFunc func(ctx context.Context, srv *http.Server, ln net.Listener, grace time.Duration, log *slog.Logger) error

// OutliveGrace calls serve, with a grace of 50ms, on a server whose one
// request waits for its context; it cancels serve's ctx once that request is
// in flight, and returns serve's result.
func OutliveGrace(t testing.TB, serve ServeFunc) error {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listening on 127.0.0.1:0: %v", err)
	}
	inFlight, ended := make(chan struct{}), make(chan struct{})
	srv := &http.Server{Handler: http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		close(inFlight)
		<-r.Context().Done()
		close(ended)
	})}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	served := make(chan error, 1)
	go func() { served <- serve(ctx, srv, ln, 50*time.Millisecond, slog.New(slog.DiscardHandler)) }()
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	asked := make(chan struct{})
	go func() {
		defer close(asked)
		if resp, err := (&http.Client{Transport: tr}).Get("http://" + ln.Addr().String()); err == nil {
			resp.Body.Close()
		}
	}()

	timeout := time.After(patience)
	wait := func(c <-chan struct{}, msg string) {
		select {
		case <-c:
		case <-timeout:
			srv.Close()
			t.Fatalf("%s %v later", msg, patience)
		}
	}
	wait(inFlight, "no request reached the handler (serve srv on ln)")
	cancel()
	select {
	case err = <-served:
	case <-timeout:
		srv.Close()
		t.Fatalf("serve was still serving %v after its context was cancelled, with a grace of 50ms", patience)
	}
	wait(ended, "a request that outlived the grace of 50ms (Close after Shutdown cancels it) was still running")
	wait(asked, "its client (its connection closed ends it) still waited")
	return err
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
