package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
)

// labCommand runs the load-test lab, a tool of this module of its own so
// that the runner links none of it (neither hey's requester nor x/net/http2
// nor crypto/tls); a test swaps in the test binary.
var labCommand = []string{"go", "tool", "lab"}

// load runs `go tool lab args…` with the runner's standard streams and
// returns the lab's exit code, 128+N if signal N ended it, 1 if it could not
// start. Ctrl-C, SIGTERM and SIGHUP are passed on to it, and the runner
// waits: the lab stops on them, and cleans up first. (Ctrl-C in a terminal
// reaches it directly too; a second SIGINT changes nothing. On Windows
// os.Process.Signal cannot send them, and the console sends Ctrl-C to every
// process in it.)
func load(_ context.Context, args []string, stdout, stderr io.Writer) int {
	cmd := exec.Command(labCommand[0], append(labCommand[1:], args...)...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, stdout, stderr
	sigs := make(chan os.Signal, 3) // buffered, as signal.Notify asks
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	if err := cmd.Start(); err != nil {
		signal.Stop(sigs)
		fmt.Fprintf(stderr, "workshop load: cannot start the lab (%v): run it from the workshop's repository with go on the PATH, as go tool lab\n", err)
		return exitRed
	}
	relayed := make(chan struct{})
	go func() {
		defer close(relayed)
		for sig := range sigs {
			_ = cmd.Process.Signal(sig) // it may have exited already
		}
	}()
	err := cmd.Wait()
	signal.Stop(sigs) // no signal is sent on sigs once Stop returns
	close(sigs)
	<-relayed
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal()) // as a shell reports a process a signal ended
	}
	if code := cmd.ProcessState.ExitCode(); err == nil || code > 0 {
		return code
	}
	return exitRed
}
