package platform

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/icecreamcorp/go-cancellation-workshop/internal/leakcheck"
)

// Each test runs a small service — this test binary, run again as a helper
// process (see main_test.go) — that calls Serve on a real loopback socket,
// sends it a real SIGINT, as Ctrl-C does, and watches what happens, from the
// outside as a client and from the inside through what the service's
// handlers report over the link.

func TestShutdown(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("on Windows a program cannot send Ctrl-C (SIGINT) to another one: os.Process.Signal supports only Kill there. Try it by hand instead (the README's Try it for real)")
	}
	leakcheck.Check(t)

	t.Run("on SIGINT, lets the request in flight finish, refuses new connections and exits 0 within the grace", func(t *testing.T) {
		const grace = 5 * time.Second
		l := newLink(t)
		svc := startService(t, l, grace)
		if svc == nil {
			return
		}
		// An upload in two halves: the second is sent only once the
		// shutdown has begun.
		body, feed := io.Pipe()
		upload := svc.request(t, http.MethodPost, "/upload", body)
		if !svc.hear(t, "service: upload started", "the upload's handler started", "task 6: Serve serves h on ln") {
			return
		}
		svc.feed(t, feed, "first half, ")
		if !svc.hear(t, "service: upload read ", "the upload's handler read the first half of the body", "task 6: Serve serves h on ln") {
			return
		}

		sent := svc.interrupt(t)
		if !svc.hear(t, "service: listener closed", "its listener was closed after SIGINT", "task 6: signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM) tells Serve; then Server.Shutdown closes the listener") {
			return
		}
		if conn, err := net.DialTimeout("tcp", svc.addr, patience); err == nil {
			conn.Close()
			assert.Fail(t, "a new connection to the service, once it had closed its listener, was accepted; want it refused (task 6: Server.Shutdown)")
		}
		svc.feed(t, feed, "second half")
		feed.Close()

		res := upload.result(t)
		if !assert.NoError(t, res.err, "POST /upload, in flight when SIGINT arrived, failed; want it to finish: a graceful shutdown lets requests in flight complete (task 6: Server.Shutdown, not Close — and on a context of its own: given the signal's context, already cancelled, Shutdown gives up at once and the request is cut). The service said: %s", l.transcript()) {
			return
		}
		if !assert.Equal(t, http.StatusOK, res.status, "POST /upload, in flight when SIGINT arrived, answered %d: %s; want 200", res.status, res.body) {
			return
		}
		var got struct {
			Received    int    `json:"received"`
			SawStopping bool   `json:"saw_stopping"`
			ContextErr  string `json:"context_err"`
		}
		if !assert.NoError(t, json.Unmarshal([]byte(res.body), &got), "POST /upload answered %s; want JSON", res.body) {
			return
		}
		assert.Equal(t, len("first half, second half"), got.Received, "bytes the upload's handler received")
		assert.True(t, got.SawStopping, "the upload's handler, finishing after SIGINT, found Stopping(r.Context()) still open; want it closed once the shutdown began, so that long handlers can wrap up (task 6: give the server a BaseContext whose context carries the signal context's Done channel under stoppingKey{})")
		finished, _ := l.await("service: upload finished", nil)
		returned, ok := l.await("service: Serve returned", svc.proc.done)
		if got.ContextErr != "" {
			why := "task 6: BaseContext must not return the signal's context, which ends at Ctrl-C and cancels every request with it: context.WithoutCancel"
			if ok && returned.at.Before(finished.at) {
				why = fmt.Sprintf("Serve had already returned (%s) and ended the requests' context: it must wait for the request in flight — task 6: Server.Shutdown waits, given a context that is not already cancelled",
					strings.TrimPrefix(returned.text, "service: Serve returned: "))
			}
			assert.Fail(t, fmt.Sprintf("the upload's request context, when it finished within the grace, had already ended (%s); want it live until the grace is over (%s)", got.ContextErr, why))
		}
		if assert.True(t, ok, "the service said: %s; want \"Serve returned\" after the upload finished", l.transcript()) {
			assert.False(t, returned.at.Before(finished.at), "Serve returned before the request in flight had finished; want it to wait for it, up to the grace (task 6: Server.Shutdown waits for requests in flight, given a context that is not already cancelled). The service said: %s", l.transcript())
		}
		if !svc.exited(t, patience, "after it served its last request") {
			return
		}
		why := "Serve returns nil when every request finished within the grace (http.ErrServerClosed is not a failure)"
		if ok && strings.Contains(returned.text, context.Canceled.Error()) {
			why = "Serve returned context.Canceled: Shutdown was given a context that had already ended — the signal's context, cancelled by the very signal that starts the shutdown — and gave up at once " +
				"(task 6: give Shutdown a context of its own: context.WithTimeout(context.WithoutCancel(ctx), grace))"
		}
		assert.Equal(t, 0, svc.proc.cmd.ProcessState.ExitCode(), "the service's exit code after a graceful shutdown; want 0: %s. The service said: %s\nIts output: %s", why, l.transcript(), &svc.proc.output)
		assert.Less(t, svc.proc.exitedAt.Sub(sent), grace, "the service exited %v after SIGINT; want it to exit as soon as its last request finished, well within the grace of %v (task 6: Server.Shutdown returns once no request is in flight)", svc.proc.exitedAt.Sub(sent), grace)
	})

	t.Run("on SIGTERM, cancels a request that outlives the grace, and still exits", func(t *testing.T) {
		const grace = 100 * time.Millisecond
		l := newLink(t)
		svc := startWaiting(t, l, grace)
		if svc == nil {
			return
		}

		// SIGTERM is what kill, systemd, Docker and Kubernetes send.
		sent := svc.signal(t, syscall.SIGTERM)
		ended, ok := l.await("service: wait ended", svc.proc.done)
		if !ok {
			// Nothing more to wait for: what it said so far tells why.
			if said := l.transcript(); !strings.Contains(said, "service: listener closed") {
				assert.Fail(t, fmt.Sprintf("the service did not shut down gracefully on SIGTERM (%s); want Serve to stop on SIGTERM as on SIGINT (task 6: list both — signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)). The service said: %s", svc.state(), l.transcript()))
			} else if !strings.Contains(said, "service: Serve returned") {
				assert.Fail(t, fmt.Sprintf("Serve was still shutting down %v after SIGTERM, with a grace of %v and a request that never ends by itself; want it to stop waiting once the grace is over (task 6: give Shutdown a deadline: context.WithTimeout(context.WithoutCancel(ctx), grace)). The service said: %s", patience, grace, l.transcript()))
			} else {
				assert.Fail(t, fmt.Sprintf("the context of GET /wait, a request still running when the grace of %v was over, never ended; want it cancelled then, so that its handler stops (task 6: when Shutdown returns with the grace over, cancel what is left: Server.Close, or cancel the base context). The service said: %s", grace, l.transcript()))
			}
			return
		}
		if early := ended.at.Sub(sent); early < grace {
			why := "task 6: Shutdown needs a context of its own, with the grace as its deadline — given the signal's context, already cancelled, it gives up at once — and Close comes only after it"
			if strings.Contains(ended.text, "signal") {
				why = "task 6: BaseContext must not return the signal's context, which ends at Ctrl-C and every request with it: context.WithoutCancel"
			}
			assert.Fail(t, fmt.Sprintf("the context of GET /wait ended %v after SIGTERM; want it to live until the grace of %v is over (%s). The service said: %s", early, grace, why, l.transcript()))
		}
		if svc.exited(t, patience, fmt.Sprintf("with a grace of %v", grace)) {
			t.Logf("the service exited %v after SIGTERM with exit code %d", svc.proc.exitedAt.Sub(sent), svc.proc.cmd.ProcessState.ExitCode())
			// The service exits 1 when Serve returns an error, 0 when nil.
			assert.Equal(t, 1, svc.proc.cmd.ProcessState.ExitCode(), "the service's exit code after a shutdown whose grace of %v ran out, a request still running; want 1: "+
				"Serve must say the shutdown was not clean (task 6: Shutdown, on a context whose deadline is the grace, returns context.DeadlineExceeded when a request outlives it — return an error that wraps it, not nil; if your Shutdown returned nil, the request had already ended: its context must stay live until the grace is over). The service said: %s", grace, l.transcript())
		}
	})

	t.Run("stops at once on a second SIGINT", func(t *testing.T) {
		if signal.Ignored(os.Interrupt) {
			t.Skip("this test process was started with SIGINT ignored (a background job of a non-interactive shell does that), and so is the service it starts: a second SIGINT cannot stop it. Run go test from a terminal")
		}
		const grace = time.Minute
		l := newLink(t)
		svc := startWaiting(t, l, grace)
		if svc == nil {
			return
		}
		svc.interrupt(t)
		if !svc.hear(t, "service: listener closed", "its listener was closed after SIGINT", "task 6: signal.NotifyContext, then Server.Shutdown") {
			return
		}
		sent := svc.interrupt(t)
		if svc.exited(t, patience, fmt.Sprintf("after a second SIGINT, with a grace of %v and a request that never ends by itself; want the second Ctrl-C to stop it at once (task 6: call stop() as soon as the first signal arrives: it gives SIGINT its default behaviour back, which ends the process)", grace)) {
			t.Logf("the service exited %v after the second SIGINT (%v)", svc.proc.exitedAt.Sub(sent), svc.proc.cmd.ProcessState)
		}
	})

	t.Run("a SIGHUP still ends the service at once, without a graceful shutdown", func(t *testing.T) {
		if signal.Ignored(syscall.SIGHUP) {
			t.Skip("this test process was started with SIGHUP ignored (nohup does that), and so is the service it starts: SIGHUP cannot end it")
		}
		const grace = time.Minute
		l := newLink(t)
		svc := startWaiting(t, l, grace)
		if svc == nil {
			return
		}
		if err := svc.proc.cmd.Process.Signal(syscall.SIGHUP); err != nil {
			t.Fatalf("sending SIGHUP to the service: %v", err)
		}
		// Either it dies, or it begins to shut down and says so.
		if _, shutdown := l.await("service: listener closed", svc.proc.done); shutdown {
			assert.Fail(t, fmt.Sprintf("the service began a graceful shutdown on SIGHUP; want SIGHUP to keep its default and end it at once: Serve stops only on SIGINT and SIGTERM (task 6: list them — signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM). With no signal listed it relays every one, even SIGURG, which the Go runtime sends itself to preempt goroutines). The service said: %s", l.transcript()))
			return
		}
		svc.exited(t, patience, "after SIGHUP, whose default is to end the process at once")
	})
}

func TestShutdownWhenTheContextEnds(t *testing.T) {
	leakcheck.Check(t)

	t.Run("serves until its context ends, then returns nil; its requests keep the context's values", func(t *testing.T) {
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

	t.Run("when a request outlives the grace, cancels it and returns an error wrapping context.DeadlineExceeded", func(t *testing.T) {
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
	leakcheck.Check(t)
	defer func(d time.Duration) { idleTimeout = d }(idleTimeout)
	idleTimeout = 50 * time.Millisecond
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listening on loopback: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() {
		err := Serve(ctx, ln, http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}), time.Second)
		ln.Close() // if Serve returned early, the test's connections fail at once
		served <- err
	}()
	defer func() {
		cancel()
		select {
		case <-served:
		case <-time.After(patience):
			t.Errorf("Serve was still running %v after its context was cancelled", patience)
		}
	}()
	for _, next := range []string{"", "GET"} { // nothing more, or 3 bytes of a next request
		conn, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatalf("connecting to Serve: %v (task 6: serve h on ln with an http.Server)", err)
		}
		defer conn.Close()
		conn.SetDeadline(time.Now().Add(idleTimeout + time.Second))
		fmt.Fprint(conn, "GET / HTTP/1.1\r\nHost: shop.test\r\n\r\n"+next)
		br := bufio.NewReader(conn)
		resp, err := http.ReadResponse(br, nil)
		if err == nil {
			resp.Body.Close()
			_, err = br.ReadByte()
		}
		assert.ErrorIs(t, err, io.EOF, "a connection that sent a request, then %q of the next, then waited: read %v; want Serve to close it after idleTimeout "+
			"(task 6: set http.Server.IdleTimeout — ReadHeaderTimeout starts only once 4 bytes of the next request are in)", next, err)
	}
}

// shopKey is the key of a value that Serve's ctx carries in the tests.
type shopKey struct{}

// service is the helper process "service", started by startService.
type service struct {
	proc   *process
	link   *link
	addr   string
	client *http.Client
}

// startService starts the helper process "service" with the given grace,
// and waits for it to listen. If it does not, it fails the test and returns
// nil.
func startService(t *testing.T, l *link, grace time.Duration) *service {
	t.Helper()
	svc := &service{link: l}
	svc.proc = startHelper(t, l, "service", graceEnv+"="+grace.String())
	listening, ok := l.await("service: listening ", svc.proc.done)
	if !ok {
		t.Errorf("the service did not say it was listening. It said: %s\nIts output: %s", l.transcript(), &svc.proc.output)
		return nil
	}
	svc.addr = strings.TrimPrefix(listening.text, "service: listening ")
	transport := &http.Transport{}
	svc.client = &http.Client{Transport: transport, Timeout: 2 * patience}
	t.Cleanup(transport.CloseIdleConnections)
	return svc
}

// startWaiting starts the service with the given grace and sends it a
// GET /wait that never ends by itself (it is answered when the test ends),
// then waits for that handler to start. If either fails, it has failed the
// test and returns nil.
func startWaiting(t *testing.T, l *link, grace time.Duration) *service {
	t.Helper()
	svc := startService(t, l, grace)
	if svc == nil {
		return nil
	}
	svc.request(t, http.MethodGet, "/wait", nil)
	if !svc.hear(t, "service: wait started", "the handler of GET /wait started", "task 6: Serve serves h on ln") {
		return nil
	}
	return svc
}

// hear waits for the service to say a line that starts with prefix, and
// reports whether it did; if not, it fails the test, saying what it waited
// to hear (a clause: "its listener was closed") and which task to read if the
// service did not say it.
func (s *service) hear(t *testing.T, prefix, what, task string) bool {
	t.Helper()
	if _, ok := s.link.await(prefix, s.proc.done); ok {
		return true
	}
	select {
	case <-s.proc.done:
	default:
		t.Errorf("waited %v to hear that %s; the service was still running (%s). It said: %s\nIts output: %s", patience, what, task, s.link.transcript(), &s.proc.output)
		return false
	}
	if returned, ok := s.link.await("service: Serve returned", s.proc.done); ok && !strings.Contains(s.link.transcript(), "service: listener closed") {
		t.Errorf("Serve returned %q without being stopped, and the service exited (%v) before %s; want Serve to serve until SIGINT arrives (task 6: run http.Server.Serve(ln) in a goroutine, and wait for the signal). The service said: %s\nIts output: %s",
			strings.TrimPrefix(returned.text, "service: Serve returned: "), s.proc.cmd.ProcessState, what, s.link.transcript(), &s.proc.output)
		return false
	}
	t.Errorf("the service exited (%v) before %s (%s). It said: %s\nIts output: %s", s.proc.cmd.ProcessState, what, task, s.link.transcript(), &s.proc.output)
	return false
}

// interrupt sends SIGINT to the service, as Ctrl-C would, and returns when.
func (s *service) interrupt(t *testing.T) time.Time {
	t.Helper()
	return s.signal(t, os.Interrupt)
}

// signal sends sig to the service, and returns when.
func (s *service) signal(t *testing.T, sig os.Signal) time.Time {
	t.Helper()
	sent := time.Now()
	if err := s.proc.cmd.Process.Signal(sig); err != nil {
		t.Errorf("sending %v to the service: %v", sig, err)
	}
	return sent
}

// state says whether the service is still running, or how it exited.
func (s *service) state() string {
	select {
	case <-s.proc.done:
		return "it exited: " + s.proc.cmd.ProcessState.String()
	default:
		return "it is still running"
	}
}

// exited waits at most d for the service to exit, and reports whether it
// did; if not, it fails the test, saying what was expected.
func (s *service) exited(t *testing.T, d time.Duration, what string) bool {
	t.Helper()
	if s.proc.wait(d) {
		return true
	}
	t.Errorf("the service was still running %v %s. It said: %s", d, what, s.link.transcript())
	return false
}

// feed writes text to an upload's body, waiting at most patience for the
// request to take it.
func (s *service) feed(t *testing.T, w *io.PipeWriter, text string) {
	t.Helper()
	done := make(chan error, 1)
	go func() {
		_, err := io.WriteString(w, text)
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("sending %q of the upload's body: %v", text, err)
		}
	case <-time.After(patience):
		w.CloseWithError(fmt.Errorf("the test gave up after %v", patience))
		<-done
		t.Errorf("the upload did not take %q of its body within %v", text, patience)
	}
}

// pending is a request to the service in flight on a goroutine of its own.
type pending struct {
	done   chan struct{}
	status int
	body   string
	err    error
}

// request sends a request to the service on a goroutine of its own.
func (s *service) request(t *testing.T, method, path string, body io.Reader) *pending {
	t.Helper()
	p := &pending{done: make(chan struct{})}
	req, err := http.NewRequest(method, "http://"+s.addr+path, body)
	if err != nil {
		t.Fatalf("http.NewRequest(%s %s): %v", method, path, err)
	}
	go func() {
		defer close(p.done)
		resp, err := s.client.Do(req)
		if err != nil {
			p.err = err
			return
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		p.status, p.body, p.err = resp.StatusCode, string(b), err
	}()
	t.Cleanup(func() {
		// The test is over: a request still in flight ends with the service.
		s.proc.kill(t)
		if c, ok := body.(io.Closer); ok {
			c.Close()
		}
		p.result(t)
	})
	return p
}

// result waits for the request's answer, at most patience.
func (p *pending) result(t *testing.T) *pending {
	t.Helper()
	select {
	case <-p.done:
	case <-time.After(2 * patience):
		t.Errorf("a request to the service had not returned after %v", 2*patience)
	}
	return p
}

// ---- The service, played by this test binary ----

// graceEnv holds the service's grace period.
const graceEnv = "PLATFORM_TEST_GRACE"

// helperService is a small service's main: it listens on a free loopback
// port, and calls Serve with two handlers that report over the link what
// they see. Once Serve has returned it waits (a little) for the handlers
// still running, so that they can report how they ended.
func helperService() int {
	link := dialLink()
	grace, err := time.ParseDuration(os.Getenv(graceEnv))
	if err != nil {
		link.say("bad %s: %v", graceEnv, err)
		return 2
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		link.say("cannot listen: %v", err)
		return 2
	}

	var handlers sync.WaitGroup
	mux := http.NewServeMux()
	// POST /upload reads its whole body, saying how far it got, then
	// says what it saw.
	mux.HandleFunc("POST /upload", func(w http.ResponseWriter, r *http.Request) {
		handlers.Add(1)
		defer handlers.Done()
		link.say("upload started")
		var body []byte
		for buf := make([]byte, 64); ; {
			n, err := r.Body.Read(buf)
			if n > 0 {
				body = append(body, buf[:n]...)
				link.say("upload read %d bytes", len(body))
			}
			if err == io.EOF {
				break
			}
			if err != nil {
				link.say("upload failed: %v", err)
				return
			}
		}
		var answer struct {
			Received    int    `json:"received"`
			SawStopping bool   `json:"saw_stopping"`
			ContextErr  string `json:"context_err"`
		}
		answer.Received = len(body)
		select {
		case <-Stopping(r.Context()):
			answer.SawStopping = true
		default:
		}
		if err := context.Cause(r.Context()); err != nil {
			answer.ContextErr = err.Error()
		}
		link.say("upload finished: %+v", answer)
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(answer)
	})
	// GET /wait runs until its context ends.
	mux.HandleFunc("GET /wait", func(w http.ResponseWriter, r *http.Request) {
		handlers.Add(1)
		defer handlers.Done()
		link.say("wait started")
		<-r.Context().Done()
		link.say("wait ended: %v", context.Cause(r.Context()))
	})

	link.say("listening %s", ln.Addr())
	err = Serve(context.Background(), &watchedListener{Listener: ln, link: link}, mux, grace)
	link.say("Serve returned: %v", err)

	finished := make(chan struct{})
	go func() {
		handlers.Wait()
		close(finished)
	}()
	select {
	case <-finished:
	case <-time.After(time.Second):
		link.say("handlers still running 1s after Serve returned")
		return 3
	}
	if err != nil {
		return 1
	}
	return 0
}

// watchedListener tells the test when it is closed.
type watchedListener struct {
	net.Listener
	link *helperLink
	once sync.Once
}

func (l *watchedListener) Close() error {
	err := l.Listener.Close()
	l.once.Do(func() { l.link.say("listener closed") })
	return err
}
