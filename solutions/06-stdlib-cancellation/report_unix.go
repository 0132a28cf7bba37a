//go:build unix

package platform

import (
	"os"
	"syscall"
)

// interrupt asks the program p to stop. SIGTERM is the signal for that on
// Unix: it is what kill, systemd, Docker and Kubernetes send, and a program
// may catch it to clean up. (os.Interrupt, SIGINT, means a user pressed
// Ctrl-C in a terminal; some programs treat it differently, as an
// interactive shell does.) If p has already exited, Signal returns
// os.ErrProcessDone, which os/exec understands: nothing to cancel.
func interrupt(p *os.Process) error {
	return p.Signal(syscall.SIGTERM)
}
