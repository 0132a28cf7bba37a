package platform

import (
	"context"
	"fmt"
	"time"
)

// A Generator is a report generator: a program that writes a report (the
// day's sales, say) to its standard output.
type Generator struct {
	Path string   // the program to run
	Args []string // its arguments, after the program's name
	Env  []string // its environment, "KEY=value"; nil means this process's own

	// Grace is how long the program has to stop once Run asks it to, before
	// it is killed. It also bounds how long Run waits for the program's
	// output to end once the program has exited. It must be more than 0.
	Grace time.Duration
}

// Run runs the generator and returns what it wrote to its standard output.
// With a Grace of 0 or less it runs nothing and returns an error.
//
// If ctx ends first, Run asks the program to stop — SIGTERM on Unix; on
// Windows, where os.Process.Signal can send only os.Kill, it is killed at
// once — and gives it g.Grace to clean up and exit before it kills it. It
// returns what the program wrote, up to the end, and an error that wraps
// context.Cause(ctx).
//
// Run never waits more than g.Grace for the output once the program has
// exited or ctx has ended, even when a process the program started (a
// grandchild) still holds the output open. When it stops waiting after a
// clean exit, the output may be incomplete: Run returns what it read and an
// error that wraps exec.ErrWaitDelay. (If ctx ends during that wait, the
// error wraps only context.Cause(ctx): the output may be cut short then too.)
//
// If the program fails on its own (ctx still live), the error wraps its
// *exec.ExitError.
func (g Generator) Run(ctx context.Context) ([]byte, error) {
	// Grace becomes WaitDelay, and a WaitDelay of 0 bounds nothing: a
	// program that ignores SIGTERM would never be killed, and a grandchild
	// holding the output would keep Run waiting for as long as it lives.
	if g.Grace <= 0 {
		return nil, fmt.Errorf("report %s: a grace of %v; want more than 0", g.Path, g.Grace)
	}
	// TODO(task 5): run the program with a command that watches ctx
	// (exec.CommandContext) and collect its output (Cmd.Output). Replace
	// the command's Cancel, which kills, by one that asks first (SIGTERM),
	// and bound the rest with Cmd.WaitDelay. If Output fails and ctx has
	// ended, say why with context.Cause — not the exit status. After a clean
	// exit, exec.ErrWaitDelay means the output may be cut short: wrap it.
	return nil, errNotImplemented
}
