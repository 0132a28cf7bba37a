// Package abort is JavaScript's Abort API done the Go way. Each function is
// one idea from the talk "Improving your applications with AbortController"
// (NodeConf Remote 2021), built on context.Context.
//
// In JavaScript an AbortController holds an AbortSignal: the controller
// aborts, the signal is what you hand to the work. In Go the same pair comes
// out of one call, context.WithCancel: the cancel function is the
// controller's abort, the context is the signal.
package abort

import (
	"context"
	"time"
)

// Batch runs steps one after another, each given a context derived from
// parent. It stops before the next step as soon as that context has ended
// (returning its error), and at the first step that fails (returning that
// step's error). When Batch returns, the steps' context is cancelled, so any
// work a step started in the background with it is told to stop.
func Batch(parent context.Context, steps ...func(ctx context.Context) error) error {
	// new AbortController(): ctx is the signal, cancel is abort().
	ctx, cancel := context.WithCancel(parent)
	// Always call cancel, on every path — defer makes that impossible to
	// forget. Until it is called, ctx stays registered with parent, and a
	// goroutine a step started with ctx keeps running until parent ends:
	// for a server's base context, that is never. Passing parent straight to
	// the steps is the tempting shortcut; it works until a step starts
	// something in the background. go vet's lostcancel check flags a cancel
	// that is never called.
	defer cancel()

	for _, step := range steps {
		// signal.aborted, checked between steps: ctx.Err() is nil while
		// the context is live, context.Canceled (or DeadlineExceeded) after.
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := step(ctx); err != nil {
			return err
		}
	}
	return nil
}

// Sleep pauses for d, like time.Sleep, but returns early with ctx.Err() as
// soon as ctx ends. It returns nil once the whole of d has passed, and returns
// ctx.Err() at once if ctx has already ended. It is the Go form of
// setTimeout(ms, value, { signal }) from Node's timers/promises.
func Sleep(ctx context.Context, d time.Duration) error {
	// throwIfAborted(): no timer at all for a caller who has already left.
	if err := ctx.Err(); err != nil {
		return err
	}
	// A timer we can wait on together with ctx.Done(). The tempting
	// alternative, time.Sleep(d) with ctx.Err() checked before or after,
	// cannot be interrupted: it sleeps the full d for a caller who left
	// long ago.
	timer := time.NewTimer(d)
	// Stop the timer when we return early (clearTimeout in JavaScript). Since
	// Go 1.23 an unstopped, unreachable timer is garbage collected, so
	// time.After no longer leaks here — but Stop frees it now and says what
	// we mean.
	defer timer.Stop()

	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-timer.C:
		return nil
	}
}
