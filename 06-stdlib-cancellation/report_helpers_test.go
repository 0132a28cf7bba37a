package platform

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
	"testing"
	"time"
)

// reportRun is a call to Generator.Run in a goroutine of its own.
type reportRun struct {
	grace    time.Duration // the generator's
	done     chan struct{} // closed when Run has returned
	out      []byte        // what Run returned; read them only once done is closed
	err      error
	returned time.Time     // when
	took     time.Duration // from the cancel to Run's return, set by cancelAndAwait
}

func startReport(ctx context.Context, g Generator) *reportRun {
	r := &reportRun{grace: g.Grace, done: make(chan struct{})}
	go func() {
		defer close(r.done)
		r.out, r.err = g.Run(ctx)
		r.returned = time.Now()
	}()
	return r
}

// awaitReady waits for the helper process name to say it is ready over the
// link, and reports whether it did; if not, it fails the test, saying why.
func (r *reportRun) awaitReady(t *testing.T, l *link, name string) bool {
	t.Helper()
	if _, ok := l.await(name+": ready", r.done); ok {
		return true
	}
	select {
	case <-r.done:
		t.Errorf("Run returned (%q, %v) before the generator %s said it was ready; want Run to start the program and wait for it (task 5: exec.CommandContext(ctx, g.Path, g.Args...) with g.Env, and Cmd.Output)%s. The helpers said: %s",
			r.out, r.err, name, stderrOf(r.err), l.transcript())
	default:
		t.Errorf("the generator %s did not say it was ready within %v. The helpers said: %s", name, patience, l.transcript())
		l.hangUp()
		r.wait(t)
	}
	return false
}

// cancelAndAwait calls cancel, then waits for Run to return, at most the
// generator's grace and two seconds, and reports whether it did. If it did
// not, it fails the test, saying why from what the generator called name
// told the link; it hangs up the link so that the helpers exit and Run
// returns, and waits for that.
func (r *reportRun) cancelAndAwait(t *testing.T, l *link, cancel func(), name string) bool {
	t.Helper()
	bound := r.grace + 2*time.Second
	cancelled := time.Now()
	cancel()
	select {
	case <-r.done:
		r.took = r.returned.Sub(cancelled)
		return true
	case <-time.After(bound):
	}
	said := l.transcript()
	var why string
	switch {
	case strings.Contains(said, name+": (exited"):
		why = "the generator has exited, but a process it started (a grandchild) still holds the output pipe open, and Run waits for the end of the output (task 5: set Cmd.WaitDelay: it also bounds how long Wait reads the output once the program has exited — when Cmd.Output reads it; output you read yourself from Cmd.StdoutPipe before Wait is not bounded)"
	case strings.Contains(said, name+": got SIGTERM"):
		why = "the generator got SIGTERM, ignores it, and nothing killed it once the grace was over (task 5: set Cmd.WaitDelay to the grace: Cmd.Cancel only asks, WaitDelay kills)"
	default:
		why = "the generator never got SIGTERM: nothing asked it to stop (task 5: exec.CommandContext — exec.Command knows nothing of ctx — with a Cmd.Cancel that sends SIGTERM)"
	}
	t.Errorf("Run of the generator %s had not returned %v after its context was cancelled, with a grace of %v: %s. The helpers said: %s",
		name, bound, r.grace, why, said)
	l.hangUp()
	r.wait(t)
	return false
}

// wait waits for Run to return once the helpers were told to exit.
func (r *reportRun) wait(t *testing.T) {
	t.Helper()
	select {
	case <-r.done:
	case <-time.After(patience):
		t.Errorf("Run still had not returned %v after the test hung up on its helper processes", patience)
	}
}

// ---- The report generators, played by this test binary ----

// helperReportDone writes a report for the day given by -day and exits 0.
func helperReportDone() int {
	if len(os.Args) != 3 || os.Args[1] != "-day" {
		fmt.Fprintf(os.Stderr, "report: usage: report -day YYYY-MM-DD (got %q)\n", os.Args[1:])
		return 2
	}
	fmt.Printf("report for %s\nflavour,sold\nPistachio,12\n", os.Args[2])
	return 0
}

// helperReportFailing writes one line, then fails.
func helperReportFailing() int {
	fmt.Println("flavour,sold")
	fmt.Fprintln(os.Stderr, "report: out of cones")
	return 3
}

// helperReportPolite writes its report, then waits for SIGTERM to clean up
// and exit (or for the test to hang up).
func helperReportPolite() int {
	term := make(chan os.Signal, 1)
	signal.Notify(term, syscall.SIGTERM)
	link := dialLink()
	fmt.Print("flavour,sold\nPistachio,12\n")
	link.say("ready")
	select {
	case <-term:
		link.say("got SIGTERM: cleaning up")
		fmt.Println("interrupted: temporary files removed")
		return 1
	case <-link.hungUp:
		return 0
	}
}

// helperReportStubborn writes one line and ignores SIGTERM: only a kill (or
// the test hanging up) stops it.
func helperReportStubborn() int {
	term := make(chan os.Signal, 1)
	signal.Notify(term, syscall.SIGTERM)
	link := dialLink()
	fmt.Println("flavour,sold")
	link.say("ready")
	for {
		select {
		case <-term:
			link.say("got SIGTERM: ignoring it")
		case <-link.hungUp:
			return 0
		}
	}
}

// orphanExitsEnv, set in its environment, makes helperReportOrphaning exit 0
// at once, instead of waiting for SIGTERM, and leave the report's last line
// to its grandchild.
const orphanExitsEnv = "PLATFORM_TEST_ORPHAN_EXITS"

// helperReportOrphaning starts a grandchild that inherits its standard
// output — a background job, as a shell script's `cmd &` — then exits on
// SIGTERM without waiting for it (or at once, with orphanExitsEnv set).
func helperReportOrphaning() int {
	term := make(chan os.Signal, 1)
	signal.Notify(term, syscall.SIGTERM)
	link := dialLink()
	exe, err := os.Executable()
	if err != nil {
		link.say("cannot find the test binary: %v", err)
		return 2
	}
	grandchild := exec.Command(exe)
	grandchild.Env = append(os.Environ(), helperEnv+"=report-grandchild")
	grandchild.Stdout, grandchild.Stderr = os.Stdout, os.Stderr // the pipe to Run, inherited
	if err := grandchild.Start(); err != nil {
		link.say("cannot start the grandchild: %v", err)
		return 2
	}
	fmt.Println("flavour,sold")
	if os.Getenv(orphanExitsEnv) != "" {
		link.say("ready: started a grandchild, pid %d; exiting 0", grandchild.Process.Pid)
		return 0
	}
	link.say("ready: started a grandchild, pid %d", grandchild.Process.Pid)
	select {
	case <-term:
		link.say("got SIGTERM: exiting, and leaving the grandchild behind")
		return 1
	case <-link.hungUp:
		return 0
	}
}

// helperReportGrandchild holds the output pipe it inherited until the test
// hangs up, then writes the report's last line: lost if Run stopped reading.
func helperReportGrandchild() int {
	link := dialLink()
	link.say("ready")
	<-link.hungUp
	fmt.Println("Pistachio,12")
	return 0
}
