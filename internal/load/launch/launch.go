// Package launch runs the load-test lab for the workshop's runner: `go tool
// workshop load` is `go tool lab` with the same arguments, signals and exit
// code. The lab is a tool of its own so that the runner links none of it:
// the first `go tool workshop` on an empty build cache compiles neither
// hey's requester nor x/net/http2 nor crypto/tls, and hint or check never
// need a module only the lab uses.
package launch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"syscall"
)

// lab is the command that runs the lab; a test swaps in the test binary.
var lab = func() []string { return []string{GoCommand(), "tool", "lab"} }

// forwarded are the signals passed on to the lab, the ones it stops on: it
// stops everything it started, removes its files and exits 128+N. Ctrl-C
// in a terminal reaches it directly too (the whole foreground process group
// gets SIGINT); a second SIGINT changes nothing. On Windows os.Process.Signal
// cannot send them, and the console sends Ctrl-C to every process in it.
var forwarded = []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP}

// Lab runs `go tool lab args…` with the runner's standard streams and
// returns its exit code: the lab's own (0 done, 1 a failure, 2 a usage
// error, 128+N stopped by signal N), 128+N if a signal ended it, 1 if it
// could not start. The signals the lab stops on are passed on to it while
// it runs; ctx is not used: the lab stops on its signals, not on the
// runner's context, so that it can clean up.
func Lab(_ context.Context, args []string, stdout, stderr io.Writer) int {
	argv := append(lab(), args...)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, stdout, stderr
	sigs := make(chan os.Signal, len(forwarded)) // buffered, as signal.Notify asks
	signal.Notify(sigs, forwarded...)
	defer signal.Stop(sigs)
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(stderr, "workshop load: cannot start the lab (%v): run it from the workshop's repository with go on the PATH, as go tool lab\n", err)
		return 1
	}
	done := make(chan struct{})
	relayed := make(chan struct{})
	go func() {
		defer close(relayed)
		for {
			select {
			case sig := <-sigs:
				_ = cmd.Process.Signal(sig) // it may have exited already
			case <-done:
				return
			}
		}
	}()
	err := cmd.Wait()
	close(done)
	<-relayed
	return exitCode(cmd.ProcessState, err)
}

// exitCode is the exit code of a finished process: its own, or the shell's
// 128+N for one a signal ended.
func exitCode(ps *os.ProcessState, err error) int {
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		return 1
	}
	if ps.Exited() {
		return ps.ExitCode()
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return 1
}

// GoCommand is the go command: the one on PATH, or else the one of the
// toolchain that built this program (`go tool` runs it without touching
// PATH).
func GoCommand() string {
	if p, err := exec.LookPath("go"); err == nil {
		return p
	}
	exe := "go"
	if runtime.GOOS == "windows" {
		exe += ".exe"
	}
	if root := os.Getenv("GOROOT"); root != "" {
		return filepath.Join(root, "bin", exe)
	}
	//lint:ignore SA1019 a last resort, on the machine that built it: go tool runs it there
	return filepath.Join(runtime.GOROOT(), "bin", exe)
}
