package platform

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
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
	// exec.Command would know nothing of ctx: the program would run to the
	// end however long ago the caller left.
	cmd := exec.CommandContext(ctx, g.Path, g.Args...)
	cmd.Env = g.Env
	// By default CommandContext kills the program (SIGKILL): it gets no
	// chance to remove its temporary files or say how far it got. Ask
	// first; interrupt is SIGTERM on Unix (report_unix.go) and a kill
	// elsewhere (report_other.go).
	cmd.Cancel = func() error { return interrupt(cmd.Process) }
	// WaitDelay does two jobs. Once ctx ends, it is the grace before the
	// kill that follows the polite request. And once the program has exited
	// (or ctx ended), it is how long Wait keeps reading the output: a
	// grandchild that inherited the pipe (a background job the program
	// started) would otherwise keep Wait — and so Run — blocked for as long
	// as it lives. Without it, a program that ignores SIGTERM, or leaves a
	// grandchild behind, hangs Run forever.
	cmd.WaitDelay = g.Grace

	out, err := cmd.Output()
	if ctx.Err() != nil {
		// The caller left: that is the reason, whatever the program's exit
		// status says ("signal: killed", "exit status 1", or even success
		// after it was asked to stop). context.Cause carries the caller's
		// own reason, where ctx.Err() would say only "context canceled".
		return out, fmt.Errorf("report %s: %w", g.Path, context.Cause(ctx))
	}
	if errors.Is(err, exec.ErrWaitDelay) {
		// The program exited with success, but something it started still
		// held its output when the grace ran out. The report is complete:
		// what that background process does is no longer Run's business.
		return out, nil
	}
	if err != nil {
		return out, fmt.Errorf("report %s failed: %w", g.Path, err)
	}
	return out, nil
}
