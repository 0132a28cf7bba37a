//go:build !unix

package platform

import "os"

// interrupt stops the program p. On Windows one process cannot send another
// SIGTERM: os.Process.Signal supports only os.Kill there. (A Go program there
// does receive syscall.SIGTERM, but from Windows: see Serve in shutdown.go.
// The console's Ctrl-C and Ctrl-Break events reach only the processes of a
// console group, which is out of this step's scope.) So the program is killed
// at once, as CommandContext does by default, and WaitDelay still bounds the
// wait for its output.
func interrupt(p *os.Process) error {
	return p.Kill()
}
