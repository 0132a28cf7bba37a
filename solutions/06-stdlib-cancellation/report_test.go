package platform

import (
	"bufio"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/icecreamcorp/go-cancellation-workshop/internal/leakcheck"
)

// The generators are this test binary, run again: helperReport, below.
func TestReport(t *testing.T) {
	begun(t, "Generator.Run", func() error {
		_, err := Generator{Path: "no-such-report-generator", Grace: time.Second}.Run(ended())
		return err
	})
	leakcheck.Check(t)
	errExit3 := errors.New("a *exec.ExitError with exit code 3, not context.Canceled")
	const grace = 50 * time.Millisecond
	for _, tc := range []struct {
		name     string
		args     []string      // the generator's
		grace    time.Duration // the generator's
		ready    int           // how many helpers to hear from before the test acts
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
		{name: "negative grace", args: []string{"stubborn"}, grace: -time.Second, wantErr: errAny, fix: "a grace of 0 or less is an error: g.Grace <= 0"},
		{name: "polite", args: []string{"polite"}, grace: 2 * time.Second, ready: 1, act: "cancel", max: 1500 * time.Millisecond,
			want: "flavour,sold\nPistachio,12\ninterrupted: temporary files removed\n", wantErr: errClosing,
			fix: "exec.CommandContext, with a Cmd.Cancel that sends SIGTERM and returns (no kill, no sleep, not SIGINT); return the output and context.Cause(ctx)"},
		{name: "stubborn", args: []string{"stubborn"}, grace: grace, ready: 1, act: "cancel",
			min: grace, max: grace + graceSlack, want: "flavour,sold\n", wantErr: errClosing,
			fix: "a Cmd.Cancel that sends SIGTERM, and Cmd.WaitDelay = g.Grace to kill after it; return context.Cause(ctx)"},
		{name: "grandchild on cancel", args: []string{"orphan"}, grace: grace, ready: 1, act: "cancel",
			max: grace + graceSlack, want: "flavour,sold\n", wantErr: errClosing,
			fix: "Cmd.WaitDelay = g.Grace bounds the wait for output; return context.Cause(ctx)"},
		{name: "grandchild after exit", args: []string{"orphan", "exit"}, grace: grace,
			want: "flavour,sold\n", wantErr: exec.ErrWaitDelay,
			fix: "Cmd.WaitDelay = g.Grace bounds the wait for output after a clean exit too; wrap exec.ErrWaitDelay, keep the output"},
		{name: "exit 0 then cancel", args: []string{"orphan", "exit"}, grace: patience, ready: 2, act: "reap",
			want: "flavour,sold\nPistachio,12\n",
			fix:  "a clean exit whose output was all read is a success: blame ctx only for an error from Output"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel() // each waits on a process of its own
			if runtime.GOOS == "windows" && (tc.name == "polite" || tc.name == "stubborn" || tc.act == "reap") {
				t.Skip("Windows cannot send SIGTERM, nor probe a process with signal 0")
			}
			addr, hellos, hangUp := newLink(t)
			ctx, cancel := context.WithCancelCause(context.Background())
			defer cancel(nil)
			if tc.act == "end first" {
				cancel(errClosing)
			}
			g := Generator{Path: os.Args[0], Args: tc.args, Env: helperEnviron("report", linkEnv+"="+addr), Grace: tc.grace}
			run := goCall(func() ([]byte, error) { return g.Run(ctx) })
			fatal := func(format string, args ...any) {
				t.Helper()
				hangUp() // the helpers exit, and Run returns
				run.await(patience)
				t.Fatalf(format+"; Run %s", append(args, ran(run))...)
			}
			pids := map[string]string{} // of the helpers heard from, by name
			for timeout := time.After(patience); len(pids) < tc.ready; {
				select {
				case hello := <-hellos:
					name, pid, _ := strings.Cut(strings.TrimSpace(hello), " ")
					pids[name] = pid
					continue
				case <-run.done:
				case <-timeout:
				}
				fatal("%d of %d helpers said they were ready; want Run to run g.Path with g.Args and g.Env: exec.CommandContext, Cmd.Output", len(pids), tc.ready)
			}
			acted := time.Now()
			switch tc.act {
			case "cancel":
				cancel(errClosing)
			case "reap":
				if !waitedFor(pids["report"]) {
					fatal("the generator (pid %s) exited, but Run had not reaped it after %v", pids["report"], patience)
				}
				cancel(errClosing)
				hangUp() // the grandchild writes the last line and exits
			}
			limit := cmp.Or(tc.max, patience)
			if run.await(limit); !run.returned() {
				fatal("Run had not returned %v after %q (grace %v): %s", limit, cmp.Or(tc.act, "ready"), tc.grace, tc.fix)
			}
			took := run.start.Add(run.took).Sub(acted)
			if tc.min > 0 && took < tc.min {
				t.Errorf("Run returned %v after the cancel; want the grace, %v, first: %s", took, tc.min, tc.fix)
			}
			var exit *exec.ExitError
			ok := errors.Is(run.err, tc.wantErr)
			switch tc.wantErr {
			case errAny:
				ok = run.err != nil
			case errExit3:
				ok = errors.As(run.err, &exit) && exit.ExitCode() == 3 && !errors.Is(run.err, context.Canceled)
			}
			if string(run.got) != tc.want || !ok {
				t.Errorf("Run %s; want (%q, %v): %s", ran(run), tc.want, tc.wantErr, tc.fix)
			}
		})
	}
}

// graceSlack is how much longer than its grace Run may take on a busy machine:
// well below a second, so a WaitDelay of a second or more is caught.
const graceSlack = 700 * time.Millisecond

const linkEnv = "PLATFORM_TEST_LINK" // where a waiting helper dials its test

// newLink listens for the helpers of a test: each dials once ready, says
// "NAME PID", and exits when the test hangs up (at its end, or sooner).
func newLink(t *testing.T) (addr string, hellos <-chan string, hangUp func()) {
	ln, said, done := loopback(t), make(chan string, 8), make(chan struct{})
	go func() {
		for conn, err := ln.Accept(); err == nil; conn, err = ln.Accept() {
			go func() {
				defer conn.Close()
				hello, _ := bufio.NewReader(conn).ReadString('\n')
				said <- hello
				<-done
			}()
		}
	}()
	hangUp = sync.OnceFunc(func() { close(done); ln.Close() })
	t.Cleanup(hangUp)
	return ln.Addr().String(), said, hangUp
}

// dialTest tells the test that this helper is ready, and returns a channel
// closed when the test hangs up.
func dialTest() <-chan struct{} {
	conn, err := net.Dial("tcp", os.Getenv(linkEnv))
	if err != nil {
		fmt.Fprintf(os.Stderr, "helper: cannot reach its test: %v\n", err)
		os.Exit(2)
	}
	fmt.Fprintf(conn, "%s %d\n", os.Getenv(helperEnv), os.Getpid())
	hungUp := make(chan struct{})
	go func() { io.Copy(io.Discard, conn); close(hungUp) }()
	return hungUp
}

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
	fmt.Println("flavour,sold")
	switch args[0] {
	case "polite":
		fmt.Println("Pistachio,12")
	case "orphan":
		grandchild := exec.Command(os.Args[0])
		grandchild.Env = append(os.Environ(), helperEnv+"=grandchild")
		grandchild.Stdout, grandchild.Stderr = os.Stdout, os.Stderr // the pipe to Run, as `cmd &` in a script
		if err := grandchild.Start(); err != nil {
			fmt.Fprintf(os.Stderr, "report: cannot start the grandchild: %v\n", err)
			return 2
		}
	}
	hungUp := dialTest()
	switch {
	case len(args) > 1: // orphan exit
		return 0
	case args[0] == "stubborn":
		<-hungUp
		return 0
	}
	select {
	case <-term:
		if args[0] == "polite" {
			time.Sleep(300 * time.Millisecond) // a clean-up that takes a moment: a kill right after SIGTERM cuts it short
			fmt.Println("interrupted: temporary files removed")
		}
		return 1 // an orphan leaves its grandchild behind
	case <-hungUp:
		return 0
	}
}

// helperGrandchild holds the output it inherited until the test hangs up,
// then writes the report's last line: lost if Run stopped reading.
func helperGrandchild() int {
	<-dialTest()
	fmt.Println("Pistachio,12")
	return 0
}

// waitedFor reports whether the process pid, which has exited, is reaped (by
// Run) within patience: until then it is a zombie, which signal 0 finds.
func waitedFor(pid string) bool {
	n, _ := strconv.Atoi(pid)
	for end := time.Now().Add(patience); time.Now().Before(end); time.Sleep(time.Millisecond) {
		p, err := os.FindProcess(n)
		if err != nil || errors.Is(p.Signal(syscall.Signal(0)), os.ErrProcessDone) {
			return true
		}
		p.Release()
	}
	return false
}

// ran says what Run did, and what a generator that failed wrote on stderr.
func ran(run *bgCall[[]byte]) string {
	var exit *exec.ExitError
	switch {
	case !run.returned():
		return run.String()
	case errors.As(run.err, &exit) && len(exit.Stderr) > 0:
		return fmt.Sprintf("returned (%q, %v) (its stderr: %s)", run.got, run.err, strings.TrimSpace(string(exit.Stderr)))
	}
	return fmt.Sprintf("returned (%q, %v)", run.got, run.err)
}
