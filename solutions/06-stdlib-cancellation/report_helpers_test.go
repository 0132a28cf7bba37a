package platform

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
	"time"
)

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
