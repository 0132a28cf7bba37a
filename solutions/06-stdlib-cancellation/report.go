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
	// as it lives.
	cmd.WaitDelay = g.Grace

	out, err := cmd.Output()
	if err != nil && ctx.Err() != nil {
		// The caller left: that is the reason, whatever the program's exit
		// status says ("signal: killed", "exit status 1", or ctx's error
		// for a program that exited 0 after it was asked to stop).
		// context.Cause carries the caller's own reason, where ctx.Err()
		// would say only "context canceled". But only an error is to be
		// explained: with none, the program exited 0 before it was asked
		// to stop and all its output was read — a complete report, even if
		// ctx has ended since.
		return out, fmt.Errorf("report %s: %w", g.Path, context.Cause(ctx))
	}
	if errors.Is(err, exec.ErrWaitDelay) {
		// The program exited 0, but something it started still held its
		// output when the grace ran out, and Wait stopped reading: what
		// that background job had yet to write is lost. Return what was
		// read; the caller decides whether a report that may be cut short
		// is of any use.
		return out, fmt.Errorf("report %s: exited 0, but its output may be incomplete: %w", g.Path, err)
	}
	if err != nil {
		return out, fmt.Errorf("report %s failed: %w", g.Path, err)
	}
	return out, nil
}
