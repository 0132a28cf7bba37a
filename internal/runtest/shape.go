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
	"strings"
	"testing"
	"time"

	"github.com/icecreamcorp/go-cancellation-workshop/internal/leakcheck"
)

// ServeFunc is a main.go's serve: srv on ln until ctx ends, then a shutdown
// with grace for the requests in flight.
type ServeFunc func(ctx context.Context, srv *http.Server, ln net.Listener, grace time.Duration, log *slog.Logger) error

// Shape is what a service's main.go gives the tests of its server shape.
type Shape struct {
	Run         RunFunc
	Serve       ServeFunc
	DefaultAddr string         // -addr's default: loopback, as "localhost:4000"
	IdleTimeout *time.Duration // main.go's idleTimeout, shortened while a subtest runs
	ReadTimeout *time.Duration // main.go's readTimeout, likewise
}

// short is the timeouts and the grace CheckShape gives: a right answer waits
// that long, a wrong one waits out the checks' bound of 1s. None of the checks
// depends on how quickly the test itself runs (the request's headers fall
// under main.go's ReadHeaderTimeout, not ReadTimeout), so it can be tiny.
const short = time.Millisecond

// CheckShape runs, as subtests, what every service's main.go does whatever
// its lesson: listen on loopback unless told otherwise, close a keep-alive
// connection left idle and one whose declared body never comes, and report a
// shutdown whose grace ran out as an error (main exits 1).
func CheckShape(t *testing.T, s Shape) {
	t.Run("loopback by default", func(t *testing.T) {
		var usage strings.Builder
		s.Run(t.Context(), []string{"-h"}, &usage)
		_, addr, _ := strings.Cut(usage.String(), `(default "`) // -addr comes first
		addr, _, _ = strings.Cut(addr, `"`)
		if addr != s.DefaultAddr {
			t.Errorf("run -h: got -addr default %q, want %s (-addr :PORT listens on every interface)", addr, s.DefaultAddr)
		}
	})
	for _, c := range []struct {
		name    string
		timeout *time.Duration
		check   func(*Server, testing.TB) error
		fix     string
	}{
		{"idle connection closed", s.IdleTimeout, (*Server).idleConn, "idleTimeout is 1ms here: set http.Server.IdleTimeout"},
		{"body never sent", s.ReadTimeout, (*Server).bodyNeverSent, "readTimeout is 1ms here: set http.Server.ReadTimeout"},
	} {
		t.Run(c.name, func(t *testing.T) {
			leakcheck.Check(t)
			defer func(d time.Duration) { *c.timeout = d }(*c.timeout)
			*c.timeout = short
			if err := c.check(Start(t, s.Run), t); err != nil {
				t.Errorf("%v (%s)", err, c.fix)
			}
		})
	}
	t.Run("grace runs out", func(t *testing.T) {
		leakcheck.Check(t)
		if err := outliveGrace(t, s.Serve); !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("serve after a request outlived the grace: got %v, want context.DeadlineExceeded (not a clean shutdown: exit 1)", err)
		}
	})
}

// within bounds the wait for a connection to close: only a wrong answer waits it out.
const within = time.Second

// idleConn sends GET / on a connection of its own, reads the answer, then
// sends "GET" and nothing more; it returns an error unless the service closes
// that connection within 1s.
func (s *Server) idleConn(t testing.TB) error {
	return s.closes(t, "GET / HTTP/1.1\r\nHost: "+s.Addr+"\r\n\r\n", "GET", patience,
		"a keep-alive connection that sent a request and then 3 bytes")
}

// bodyNeverSent sends GET / with a Content-Length of 1000 and no body; it
// returns an error unless the service answers and closes that connection within 1s.
func (s *Server) bodyNeverSent(t testing.TB) error {
	return s.closes(t, "GET / HTTP/1.1\r\nHost: "+s.Addr+"\r\nContent-Length: 1000\r\n\r\n", "", within,
		"a request that declared a body and sent none")
}

func (s *Server) closes(t testing.TB, req, then string, answer time.Duration, what string) error {
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

// outliveGrace calls serve, with a grace of 1ms, on a server whose one
// request waits for its context; it cancels serve's ctx once that request is
// in flight, and returns serve's result.
func outliveGrace(t testing.TB, serve ServeFunc) (err error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listening on 127.0.0.1:0: %v", err)
	}
	inFlight, ended, served, asked := make(chan struct{}), make(chan struct{}), make(chan struct{}), make(chan struct{})
	srv := &http.Server{Handler: http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		close(inFlight)
		<-r.Context().Done()
		close(ended)
	})}
	defer srv.Close() // when a wait below fails
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { err = serve(ctx, srv, ln, short, slog.New(slog.DiscardHandler)); close(served) }()
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	go func() {
		defer close(asked)
		if resp, err := (&http.Client{Transport: tr}).Get("http://" + ln.Addr().String()); err == nil {
			resp.Body.Close()
		}
	}()
	timeout := time.After(patience)
	for _, w := range []struct {
		c   chan struct{}
		msg string
	}{
		{inFlight, "no request reached the handler (serve srv on ln)"},
		{served, "serve, with a grace of 1ms, still served its cancelled context"},
		{ended, "a request that outlived the grace of 1ms (Close after Shutdown cancels it) was still running"},
		{asked, "its client (its connection closed ends it) still waited"},
	} {
		select {
		case <-w.c:
		case <-timeout:
			t.Fatalf("%s %v later", w.msg, patience)
		}
		cancel() // once the request is in flight
	}
	return err
}
