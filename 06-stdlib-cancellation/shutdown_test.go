package platform

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/signal"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/icecreamcorp/go-cancellation-workshop/internal/leakcheck"
)

// Each test runs a service, this test binary run again (helper_service_test.go),
// that calls Serve on a loopback port; sends it a real signal; and watches,
// as its client and through what its handlers say over the link.

func TestShutdown(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("os.Process.Signal sends neither SIGINT nor SIGTERM on Windows: try it by hand (the README's Try it for real)")
	}
	begun(t, "Serve", serveEnded)
	leakcheck.Check(t)

	t.Run("SIGINT", func(t *testing.T) {
		t.Parallel()
		const grace = 5 * time.Second
		svc := startService(t, grace)
		// An upload whose second half comes after SIGINT.
		upload := send(t, svc.addr, "POST /upload HTTP/1.1\r\nHost: shop.test\r\nContent-Length: 23\r\n\r\nfirst half, ")
		svc.hear(t, "upload read ", "Serve serves h on ln")
		sent := svc.signal(t, os.Interrupt)
		svc.hear(t, "listener closed", "signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM), then Server.Shutdown")
		if conn, err := net.DialTimeout("tcp", svc.addr, patience); err == nil {
			conn.Close()
			t.Errorf("a new connection after SIGINT: accepted, want refused: Server.Shutdown closes the listener")
		}
		fmt.Fprint(upload, "second half")

		var got uploadSeen
		res, err := answer(upload)
		if err == nil {
			err = json.Unmarshal([]byte(strings.TrimPrefix(res, "200 ")), &got)
		}
		switch {
		case err != nil || got.Received != len("first half, second half"):
			t.Fatalf("POST /upload in flight at SIGINT: got %q, %v; want it answered: Shutdown on a context of its own, not Close",
				res, err)
		case got.ContextErr != "":
			t.Errorf("the upload's context ended (%s) within the grace; want it live: base it on context.WithoutCancel(ctx), cancel it only when the grace is over", got.ContextErr)
		case !got.SawStopping:
			t.Errorf("Stopping(r.Context()) still open after SIGINT; want it closed: BaseContext carries the signal context's Done() under stoppingKey{}")
		}
		finished := svc.hear(t, "upload finished", "")
		returned := svc.hear(t, "Serve returned", "")
		if returned.at.Before(finished.at) {
			t.Errorf("Serve returned before the upload finished; want it to wait: Server.Shutdown, given a context that has not ended")
		}
		if !svc.wait() {
			t.Fatalf("the service still running %v after its last request", patience)
		}
		if code := svc.cmd.ProcessState.ExitCode(); code != 0 || svc.exitedAt.Sub(sent) > grace {
			t.Errorf("the service exited %v after SIGINT with code %d, %s; want 0 well within the grace, %v: http.ErrServerClosed is not a failure, Shutdown's context not the signal's",
				svc.exitedAt.Sub(sent), code, returned.text, grace)
		}
	})

	t.Run("SIGTERM past grace", func(t *testing.T) {
		t.Parallel()
		const grace = 100 * time.Millisecond
		svc := startWaiting(t, grace)
		sent := svc.signal(t, syscall.SIGTERM)
		ended, ok := svc.link.await("service: wait ended", svc.done)
		said := svc.link.transcript()
		switch took := ended.at.Sub(sent); {
		case !ok && !strings.Contains(said, "listener closed"):
			t.Errorf("no graceful shutdown on SIGTERM; want one, as on SIGINT: signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)")
		case !ok && !strings.Contains(said, "Serve returned"):
			t.Errorf("Serve still shutting down %v after SIGTERM, grace %v; want it back then: Shutdown's context is context.WithTimeout(context.WithoutCancel(ctx), grace)", patience, grace)
		case !ok:
			t.Errorf("GET /wait's context never ended, grace %v; want it cancelled when the grace is over: cancel the base context, or Server.Close", grace)
		case took < grace || took > grace+graceSlack:
			t.Errorf("GET /wait's context ended %v after SIGTERM; want it at the grace, %v: Shutdown's deadline is the grace, on a context of its own; BaseContext not the signal's", took, grace)
		}
		if !svc.wait() {
			t.Fatalf("the service still running %v after SIGTERM, grace %v", patience, grace)
		}
		if code := svc.cmd.ProcessState.ExitCode(); code != 1 {
			t.Errorf("the service exited %d after its grace ran out; want 1: Serve returns an error that wraps Shutdown's context.DeadlineExceeded", code)
		}
	})

	t.Run("second SIGINT", func(t *testing.T) {
		t.Parallel()
		if signal.Ignored(os.Interrupt) {
			t.Skip("started with SIGINT ignored (a background job of a shell does that): run go test from a terminal")
		}
		svc := startWaiting(t, time.Minute)
		svc.signal(t, os.Interrupt)
		svc.hear(t, "listener closed", "signal.NotifyContext, then Server.Shutdown")
		svc.signal(t, os.Interrupt)
		if !svc.wait() {
			t.Errorf("the service still running %v after a second SIGINT; want it dead: call stop() once the first signal arrives", patience)
		}
	})

	t.Run("SIGHUP", func(t *testing.T) {
		t.Parallel()
		if signal.Ignored(syscall.SIGHUP) {
			t.Skip("started with SIGHUP ignored (nohup does that)")
		}
		svc := startWaiting(t, time.Minute)
		svc.signal(t, syscall.SIGHUP)
		if _, ok := svc.link.await("service: listener closed", svc.done); ok {
			t.Errorf("SIGHUP began a graceful shutdown; want it to end the process: list only os.Interrupt and syscall.SIGTERM")
		} else if !svc.wait() {
			t.Errorf("the service still running %v after SIGHUP; want it dead", patience)
		}
	})
}
