package platform

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/icecreamcorp/go-cancellation-workshop/internal/leakcheck"
)

// The generators are this test binary, run again (helperReport, below):
// Args[0] picks what it does. The ones that wait say "ready" over the link
// once they listen for SIGTERM; only then does the test act.

func TestReport(t *testing.T) {
	begun(t, "Generator.Run", func() error {
		_, err := Generator{Path: "no-such-report-generator", Grace: time.Second}.Run(ended())
		return err
	})
	leakcheck.Check(t)
	errExit3 := errors.New("a *exec.ExitError with exit code 3, not context.Canceled")
	matches := func(err, want error) bool {
		var exit *exec.ExitError
		switch want {
		case errAny:
			return err != nil
		case errExit3:
			return errors.As(err, &exit) && exit.ExitCode() == 3 && !errors.Is(err, context.Canceled)
		}
		return errors.Is(err, want)
	}
	const grace = 50 * time.Millisecond
	for _, tc := range []struct {
		name     string
		args     []string      // the generator's
		grace    time.Duration // the generator's
		ready    []string      // the helpers to hear "ready" from before the test acts
		act      string        // "end first": cancel before Run; "cancel": once ready; "reap": once Run has reaped it
		min, max time.Duration // Run returns within [min, max] of the act (max 0: patience)
		want     string        // Run's output
		wantErr  error         // nil, errAny, errExit3, or what it wraps
		fix      string
	}{
		{name: "finishes", args: []string{"done", "2026-11-30"}, grace: patience,
			want: "report for 2026-11-30\nflavour,sold\nPistachio,12\n",
			fix:  "run g.Path with g.Args and g.Env, and return Cmd.Output's"},
		{name: "fails", args: []string{"fail"}, grace: patience, want: "flavour,sold\n", wantErr: errExit3,
			fix: "wrap Cmd.Output's error with %w and keep its output; Output, not CombinedOutput"},
		{name: "ended context", args: []string{"done", "2026-11-30"}, grace: patience, act: "end first", wantErr: errClosing,
			fix: "exec.CommandContext runs nothing then; return context.Cause(ctx)"},
		{name: "zero grace", args: []string{"done", "2026-11-30"}, wantErr: errAny,
			fix: "keep the Grace check at the top of Run"},
		{name: "polite", args: []string{"polite"}, grace: 2 * time.Second, ready: []string{"report"}, act: "cancel",
			want: "flavour,sold\nPistachio,12\ninterrupted: temporary files removed\n", wantErr: errClosing,
			fix: "exec.CommandContext, with a Cmd.Cancel that sends SIGTERM (not a kill, not SIGINT); return the output and context.Cause(ctx)"},
		{name: "stubborn", args: []string{"stubborn"}, grace: grace, ready: []string{"report"}, act: "cancel",
			min: grace, max: grace + graceSlack, want: "flavour,sold\n", wantErr: errClosing,
			fix: "a Cmd.Cancel that sends SIGTERM, and Cmd.WaitDelay = g.Grace to kill after it; return context.Cause(ctx)"},
		{name: "grandchild on cancel", args: []string{"orphan"}, grace: grace, ready: []string{"report", "grandchild"}, act: "cancel",
			max: grace + graceSlack, want: "flavour,sold\n", wantErr: errClosing,
			fix: "Cmd.WaitDelay = g.Grace bounds the wait for output; return context.Cause(ctx)"},
		{name: "grandchild after exit", args: []string{"orphan", "exit"}, grace: grace, ready: []string{"report", "grandchild"},
			max: grace + graceSlack, want: "flavour,sold\n", wantErr: exec.ErrWaitDelay,
			fix: "Cmd.WaitDelay = g.Grace bounds the wait for output after a clean exit too; wrap exec.ErrWaitDelay, keep the output"},
		{name: "exit 0 then cancel", args: []string{"orphan", "exit"}, grace: patience, ready: []string{"report", "grandchild"}, act: "reap",
			want: "flavour,sold\nPistachio,12\n",
			fix:  "a clean exit whose output was all read is a success: blame ctx only for an error from Output"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel() // each waits on a process of its own
			if runtime.GOOS == "windows" && (tc.name == "polite" || tc.name == "stubborn" || tc.act == "reap") {
				t.Skip("Windows cannot send SIGTERM, nor probe a process with signal 0")
			}
			l := newLink(t)
			ctx, cancel := context.WithCancelCause(context.Background())
			defer cancel(nil)
			if tc.act == "end first" {
				cancel(errClosing)
			}
			g := Generator{Path: os.Args[0], Args: tc.args, Env: helperEnviron(l, "report"), Grace: tc.grace}
			run := goCall(func() ([]byte, error) { return g.Run(ctx) })
			fatal := func(format string, args ...any) {
				t.Helper()
				l.hangUp() // the helpers exit, and Run returns
				run.await(patience)
				t.Fatalf(format, args...) // the link's clean-up logs what the helpers said
			}
			for _, name := range tc.ready {
				unless := run.done
				if name != "report" {
					unless = nil // the generator may exit first
				}
				if _, ok := l.await(name+": ready", unless); !ok {
					state := "is still running"
					if run.returned() {
						state = fmt.Sprintf("returned (%q, %v)%s", run.got, run.err, stderrOf(run.err))
					}
					fatal("%s never said ready, and Run %s; want Run to run g.Path with g.Args and g.Env: exec.CommandContext, Cmd.Output", name, state)
				}
			}
			acted := time.Now()
			switch tc.act {
			case "cancel":
				cancel(errClosing)
			case "reap":
				hello, _ := l.await("report: hello", nil)
				var pid int
				fmt.Sscanf(hello.text, "report: hello %d", &pid)
				if !waitedFor(pid) {
					fatal("the generator (pid %d) exited, but Run had not reaped it after %v", pid, patience)
				}
				cancel(errClosing)
				l.hangUp() // the grandchild writes the last line and exits
			}
			limit := cmp.Or(tc.max, patience)
			if run.await(limit); !run.returned() {
				fatal("Run had not returned %v after %q (grace %v): %s", limit, cmp.Or(tc.act, "ready"), tc.grace, tc.fix)
			}
			took := run.start.Add(run.took).Sub(acted)
			t.Logf("Run returned %v after %q", took, cmp.Or(tc.act, "ready"))
			if tc.min > 0 && took < tc.min {
				t.Errorf("Run returned %v after the cancel; want the grace, %v, first: %s", took, tc.min, tc.fix)
			}
			if string(run.got) != tc.want || !matches(run.err, tc.wantErr) {
				t.Errorf("Run = (%q, %v); want (%q, %v): %s%s", run.got, run.err, tc.want, tc.wantErr, tc.fix, stderrOf(run.err))
			}
		})
	}
}

// graceSlack is how much longer than its grace Run may take: a kill and a
// reap take milliseconds, but the machine may be busy. It is well below a
// second, so a WaitDelay of a second or more, whatever the grace, is caught.
const graceSlack = 700 * time.Millisecond

// helperReport is a report generator. Its first argument says what it does:
//
//	done DAY     writes the day's report, exits 0
//	fail         writes a line, fails with exit status 3
//	polite       writes two lines; on SIGTERM, a third, and exits 1
//	stubborn     writes a line, ignores SIGTERM
//	orphan       writes a line, starts a grandchild that holds stdout; exits 1 on SIGTERM
//	orphan exit  the same, but exits 0 at once
//
// The waiting ones exit 0 when the test hangs up.
func helperReport() int {
	args := os.Args[1:]
	switch {
	case len(args) == 2 && args[0] == "done":
		fmt.Printf("report for %s\nflavour,sold\nPistachio,12\n", args[1])
		return 0
	case len(args) == 1 && args[0] == "fail":
		fmt.Println("flavour,sold")
		fmt.Fprintln(os.Stderr, "report: out of cones")
		return 3
	case len(args) == 0 || !strings.Contains("polite stubborn orphan", args[0]):
		fmt.Fprintf(os.Stderr, "report: unknown arguments %q\n", args)
		return 2
	}
	term := make(chan os.Signal, 1)
	signal.Notify(term, syscall.SIGTERM)
	link := dialLink()
	fmt.Println("flavour,sold")
	switch args[0] {
	case "polite":
		fmt.Println("Pistachio,12")
	case "orphan":
		grandchild := exec.Command(os.Args[0])
		grandchild.Env = append(os.Environ(), helperEnv+"=grandchild")
		grandchild.Stdout, grandchild.Stderr = os.Stdout, os.Stderr // the pipe to Run, as `cmd &` in a script
		if err := grandchild.Start(); err != nil {
			link.say("cannot start the grandchild: %v", err)
			return 2
		}
		if len(args) > 1 {
			link.say("ready; exiting 0")
			return 0
		}
	}
	link.say("ready")
	for {
		select {
		case <-term:
			link.say("got SIGTERM")
			switch args[0] {
			case "polite":
				fmt.Println("interrupted: temporary files removed")
				return 1
			case "orphan":
				return 1 // leaving the grandchild behind
			}
		case <-link.hungUp:
			return 0
		}
	}
}

// helperGrandchild holds the output it inherited until the test hangs up,
// then writes the report's last line: lost if Run stopped reading.
func helperGrandchild() int {
	link := dialLink()
	link.say("ready")
	<-link.hungUp
	fmt.Println("Pistachio,12")
	return 0
}

// waitedFor reports whether the process pid, which has exited, is reaped (by
// Run) within patience: until then it is a zombie, which signal 0 finds.
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

// stderrOf is what a generator that failed wrote on stderr, if err has it.
func stderrOf(err error) string {
	var exit *exec.ExitError
	if errors.As(err, &exit) && len(exit.Stderr) > 0 {
		return fmt.Sprintf(" (its stderr: %s)", strings.TrimSpace(string(exit.Stderr)))
	}
	return ""
}
