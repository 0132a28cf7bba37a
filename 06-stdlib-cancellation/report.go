package platform

import (
	"context"
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
	// output to end once the program has exited.
	Grace time.Duration
}

// Run runs the generator and returns what it wrote to its standard output.
//
// If ctx ends first, Run asks the program to stop — SIGTERM on Unix; on
// Windows, which has no such signal, it is killed at once — and gives it
// g.Grace to clean up and exit before it kills it. It returns what the
// program wrote, up to the end, and an error that wraps context.Cause(ctx).
//
// Run never waits more than g.Grace for the output once the program has
// exited or ctx has ended, even when a process the program started (a
// grandchild) still holds the output open. A program that exited with
// status 0 wrote its report, whoever still holds the output: the result is
// the report and a nil error.
//
// If the program fails on its own (ctx still live), the error wraps its
// *exec.ExitError.
func (g Generator) Run(ctx context.Context) ([]byte, error) {
	// TODO(task 5): run the program with a command that watches ctx
	// (exec.CommandContext) and collect its output (Cmd.Output). Replace
	// the command's Cancel, which kills, by one that asks first (SIGTERM),
	// and bound the rest with Cmd.WaitDelay. Once it has returned, if ctx
	// has ended, say why with context.Cause — not the exit status.
	return nil, errNotImplemented
}
