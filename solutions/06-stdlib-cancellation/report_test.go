package platform

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/icecreamcorp/go-cancellation-workshop/internal/leakcheck"
)

// The report generators below are this test binary, run again as helper
// processes (see main_test.go). The ones that run until they are stopped
// tell the test over the link when they are ready, so that the test cancels
// only once they listen for SIGTERM.

func TestReport(t *testing.T) {
	begun(t, "Generator.Run", func() error {
		_, err := Generator{Path: "no-such-report-generator", Grace: time.Second}.Run(ended())
		return err
	})
	leakcheck.Check(t)
	exe := testBinary(t)
	errClosing := errors.New("the shop is closing")

	t.Run("finishes", func(t *testing.T) {
		g := Generator{Path: exe, Args: []string{"-day", "2026-11-30"}, Env: helperEnviron(nil, "report-done"), Grace: patience}
		out, err := g.Run(context.Background())
		if !assert.NoError(t, err, "Run of a generator that writes its report and exits 0 (task 5: run g.Path with g.Args and g.Env, and return what it wrote to stdout: Cmd.Output)%s", stderrOf(err)) {
			return
		}
		assert.Equal(t, "report for 2026-11-30\nflavour,sold\nPistachio,12\n", string(out),
			"Run's output for a generator given the arguments -day 2026-11-30 (task 5: pass g.Args after g.Path, and g.Env as the command's environment)")
	})

	t.Run("fails", func(t *testing.T) {
		g := Generator{Path: exe, Env: helperEnviron(nil, "report-failing"), Grace: patience}
		out, err := g.Run(context.Background())
		var exit *exec.ExitError
		if assert.ErrorAs(t, err, &exit, "Run of a generator that fails with exit status 3 returned %v; want an error that wraps its *exec.ExitError, so the caller can tell why (task 5: wrap Wait's error with %%w)", err) {
			assert.Equal(t, 3, exit.ExitCode(), "the exit code in Run's error (task 5)%s", stderrOf(err))
		}
		assert.NotErrorIs(t, err, context.Canceled, "Run of a generator that failed on its own, its context still live (task 5: blame the context only when ctx.Err() is not nil)")
		fix := "task 5: return what Cmd.Output returned beside its error"
		if len(out) > len("flavour,sold\n") {
			fix = "task 5: Cmd.Output, not CombinedOutput: what the program wrote on stderr is in the *exec.ExitError"
		}
		assert.Equal(t, "flavour,sold\n", string(out), "Run's output from a generator that wrote one line on stdout, then failed; want that line, and only what it wrote on stdout (%s)", fix)
	})

	t.Run("ended context", func(t *testing.T) {
		ctx, cancel := context.WithCancelCause(context.Background())
		cancel(errClosing)
		g := Generator{Path: exe, Args: []string{"-day", "2026-11-30"}, Env: helperEnviron(nil, "report-done"), Grace: patience}
		out, err := g.Run(ctx)
		assert.ErrorIs(t, err, errClosing, "Run with a context already cancelled with the cause %q returned %v; want that cause (task 5: exec.CommandContext does not start the program then; return context.Cause(ctx))", errClosing, err)
		assert.Empty(t, string(out), "Run's output with a context that had already ended; want none: the generator should not have run (task 5: exec.CommandContext)")
	})

	t.Run("zero grace", func(t *testing.T) {
		g := Generator{Path: exe, Args: []string{"-day", "2026-11-30"}, Env: helperEnviron(nil, "report-done")}
		out, err := g.Run(context.Background())
		assert.Error(t, err, "Run with a Grace of 0; want an error: with no WaitDelay, nothing would bound the wait (task 5: keep the Grace check at the top of Run)")
		assert.Empty(t, string(out), "Run's output with a Grace of 0; want none: the generator should not have run (task 5: keep the Grace check at the top of Run)")
	})

	t.Run("polite", func(t *testing.T) {
		if runtime.GOOS == "windows" {
			t.Skip("Windows has no SIGTERM to send another process: Run kills the generator at once, so there is no clean-up to see")
		}
		l := newLink(t)
		ctx, cancel := context.WithCancelCause(context.Background())
		defer cancel(nil)
		g := Generator{Path: exe, Env: helperEnviron(l, "report-polite"), Grace: 2 * time.Second}
		run := startReport(ctx, g)
		if !run.awaitReady(t, l, "report-polite") {
			return
		}

		if !run.cancelAndAwait(t, l, func() { cancel(errClosing) }, "report-polite") {
			return
		}
		assert.ErrorIs(t, run.err, errClosing, "Run's error once its context was cancelled with the cause %q was %q; want that cause: the exit status (\"signal: terminated\", \"exit status 1\") does not say why (task 5: when ctx.Err() is not nil, return context.Cause(ctx))", errClosing, run.err)
		assert.Equal(t, "flavour,sold\nPistachio,12\ninterrupted: temporary files removed\n", string(run.out),
			"Run's output from a generator that writes two lines, then one more when it gets SIGTERM; a missing last line means it did not get SIGTERM, and was ended without a chance to clean up (task 5: Cmd.Cancel must send SIGTERM: the default Cancel kills, and os.Interrupt is SIGINT)")
	})

	t.Run("kills stubborn", func(t *testing.T) {
		if runtime.GOOS == "windows" {
			t.Skip("Windows has no SIGTERM to send another process: Run kills the generator at once, so there is no grace to check")
		}
		l := newLink(t)
		ctx, cancel := context.WithCancelCause(context.Background())
		defer cancel(nil)
		const grace = 50 * time.Millisecond
		g := Generator{Path: exe, Env: helperEnviron(l, "report-stubborn"), Grace: grace}
		run := startReport(ctx, g)
		if !run.awaitReady(t, l, "report-stubborn") {
			return
		}

		if !run.cancelAndAwait(t, l, func() { cancel(errClosing) }, "report-stubborn") {
			return
		}
		t.Logf("Run returned %v after its context was cancelled, with a grace of %v", run.took, grace)
		assert.GreaterOrEqual(t, run.took, grace, "Run of a generator that ignores SIGTERM returned %v after its context was cancelled; want it given its grace of %v first (task 5: ask with a Cmd.Cancel that sends SIGTERM, and kill only after Cmd.WaitDelay — the default Cancel kills at once, and SIGINT, os.Interrupt, ends a program that catches only SIGTERM)", run.took, grace)
		assert.Less(t, run.took, grace+graceSlack, "Run of a generator that ignores SIGTERM returned %v after its context was cancelled; want it killed once its grace of %v is over, well within %v (task 5: Cmd.WaitDelay = g.Grace, the generator's own grace, not a fixed duration)", run.took, grace, grace+graceSlack)
		assert.ErrorIs(t, run.err, errClosing, "Run's error once its context was cancelled with the cause %q was %q; want that cause: \"signal: killed\" does not say why (task 5: when ctx.Err() is not nil, return context.Cause(ctx))", errClosing, run.err)
		assert.Equal(t, "flavour,sold\n", string(run.out), "Run's output from a generator that wrote one line before it was killed; want that line (task 5)")
	})

	t.Run("grandchild on cancel", func(t *testing.T) {
		l := newLink(t)
		ctx, cancel := context.WithCancelCause(context.Background())
		defer cancel(nil)
		const grace = 50 * time.Millisecond
		g := Generator{Path: exe, Env: helperEnviron(l, "report-orphaning"), Grace: grace}
		run := startReport(ctx, g)
		if !run.awaitReady(t, l, "report-orphaning") || !run.awaitReady(t, l, "report-grandchild") {
			return
		}

		if !run.cancelAndAwait(t, l, func() { cancel(errClosing) }, "report-orphaning") {
			return
		}
		t.Logf("Run returned %v after its context was cancelled, with a grace of %v, the grandchild still holding the output", run.took, grace)
		assert.ErrorIs(t, run.err, errClosing, "Run's error once its context was cancelled with the cause %q was %q; want that cause (task 5: when ctx.Err() is not nil, return context.Cause(ctx))", errClosing, run.err)
		assert.Less(t, run.took, grace+graceSlack, "Run of a generator whose grandchild holds the output open returned %v after its context was cancelled; want it to stop waiting for the output once the grace of %v is over, well within %v (task 5: Cmd.WaitDelay = g.Grace, the generator's own grace, not a fixed duration)", run.took, grace, grace+graceSlack)
		// The grandchild is still running; the link's clean-up ends it and
		// fails the test if it does not exit.
	})

	// The generator exits 0 and leaves the report's last line to a
	// background job (a grandchild), which writes it when the test hangs up.
	for _, tc := range []struct {
		name    string
		grace   time.Duration
		cancel  bool // cancel once Run has waited for the generator, then hang up: the output ends
		wantErr error
		wantOut string
		fix     string
	}{
		{"grandchild after exit", 50 * time.Millisecond, false, exec.ErrWaitDelay, "flavour,sold\n",
			"task 5: after a clean exit, exec.ErrWaitDelay says the output may be cut short — return what was read, and an error that wraps it"},
		{"exit 0 then cancel", patience, true, nil, "flavour,sold\nPistachio,12\n",
			"task 5: blame the context only for an error from Output — a clean exit whose output was all read is a success"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.cancel && runtime.GOOS == "windows" {
				t.Skip("os.Process.Signal cannot probe a process on Windows: the test cannot tell when Run has waited for the generator")
			}
			l := newLink(t)
			ctx, cancel := context.WithCancelCause(context.Background())
			defer cancel(nil)
			g := Generator{Path: exe, Env: helperEnviron(l, "report-orphaning", orphanExitsEnv+"=1"), Grace: tc.grace}
			run := startReport(ctx, g)
			if !run.awaitReady(t, l, "report-orphaning") {
				return
			}
			hello, _ := l.await("report-orphaning: hello", nil) // said before "ready"
			// The generator has exited, or is about to: Run may well return
			// before the grandchild says it is ready.
			if _, ok := l.await("report-grandchild: ready", nil); !ok {
				t.Errorf("the generator report-grandchild did not say it was ready within %v. The helpers said: %s", patience, l.transcript())
				l.hangUp()
				run.wait(t)
				return
			}
			if tc.cancel {
				var pid int
				fmt.Sscanf(hello.text, "report-orphaning: hello report-orphaning %d", &pid)
				if !waitedFor(pid) {
					t.Errorf("the generator (pid %d) had exited, but Run had not waited for it %v later. The helpers said: %s", pid, patience, l.transcript())
				}
				cancel(errClosing)
				l.hangUp()
			}
			select {
			case <-run.done:
			case <-time.After(tc.grace + graceSlack):
				t.Errorf("Run of a generator that exited 0 had not returned %v after its grandchild was ready, the grandchild still holding the output open; "+
					"want it back once the grace of %v is over (task 5: Cmd.WaitDelay = g.Grace also bounds the wait for the output after the program has exited, without any cancel). The helpers said: %s",
					tc.grace+graceSlack, tc.grace, l.transcript())
				l.hangUp()
				run.wait(t)
				return
			}
			if tc.wantErr == nil {
				assert.NoError(t, run.err, "Run of a generator that exited 0, its output all read, its context ended after it exited (%s)", tc.fix)
			} else {
				assert.ErrorIs(t, run.err, tc.wantErr, "Run of a generator that exited 0, a grandchild still holding the output open once the grace was over (%s)", tc.fix)
			}
			assert.Equal(t, tc.wantOut, string(run.out), "Run's output from a generator that wrote one line and exited 0, its grandchild to write the last (%s)", tc.fix)
		})
	}
}

// waitedFor reports whether the process pid, which has exited, is waited for
// (by Run) within patience: until then it is a zombie, which a signal 0
// still finds.
func waitedFor(pid int) bool {
	for end := time.Now().Add(patience); time.Now().Before(end); time.Sleep(time.Millisecond) {
		p, err := os.FindProcess(pid)
		if err != nil || errors.Is(p.Signal(syscall.Signal(0)), os.ErrProcessDone) {
			return true
		}
		p.Release()
	}
	return false
}

// graceSlack is how much longer than its grace Run may take to return once
// its context is cancelled: killing a process and reaping it takes
// milliseconds, but this machine may be busy. It is far below a second, so a
// WaitDelay fixed at a second or more, whatever the grace, is caught.
const graceSlack = 700 * time.Millisecond

// stderrOf is what a generator that failed wrote to its standard error, if
// err carries it (Cmd.Output keeps it in the *exec.ExitError), for a failure
// message.
func stderrOf(err error) string {
	var exit *exec.ExitError
	if errors.As(err, &exit) && len(exit.Stderr) > 0 {
		return fmt.Sprintf(". The generator wrote on stderr: %s", strings.TrimSpace(string(exit.Stderr)))
	}
	return ""
}
