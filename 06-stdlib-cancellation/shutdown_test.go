package platform

import (
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
		t.Skip("on Windows os.Process.Signal can send neither SIGINT nor SIGTERM: it supports only Kill. Try it by hand instead (the README's Try it for real)")
	}
	begun(t, "Serve", serveEnded)
	leakcheck.Check(t)

	t.Run("SIGINT", func(t *testing.T) {
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

	t.Run("SIGTERM past grace", func(t *testing.T) {
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

	t.Run("second SIGINT", func(t *testing.T) {
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

	t.Run("SIGHUP", func(t *testing.T) {
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

// serveEnded calls Serve with a context that has ended, for begun.
func serveEnded() error {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil
	}
	defer ln.Close()
	return Serve(ended(), ln, http.NotFoundHandler(), time.Second)
}

// shopKey is the key of a value that Serve's ctx carries in the tests.
type shopKey struct{}
