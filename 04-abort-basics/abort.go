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
	"errors"
	"time"
)

// errNotImplemented is what the stubs return until you write them.
var errNotImplemented = errors.New("not implemented yet: see this step's README")

// notImplemented is what the stubs that return a context return until you
// write them: a context that has already ended, with errNotImplemented as its
// reason, so that nothing waits on it forever.
func notImplemented() (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(errNotImplemented)
	return ctx, func() { cancel(nil) }
}

// Batch runs steps one after another, each given a context derived from
// parent. It stops before the next step as soon as that context has ended
// (returning its error), and at the first step that fails (returning that
// step's error). When Batch returns, the steps' context is cancelled, so any
// work a step started in the background with it is told to stop.
func Batch(parent context.Context, steps ...func(ctx context.Context) error) error {
	// TODO(task 1): derive the steps' context from parent with
	// context.WithCancel, and make sure its cancel function runs whenever
	// Batch returns. Before each step, ask the context whether it has ended
	// (ctx.Err()); stop at the first step that fails.
	return errNotImplemented
}

// Sleep pauses for d, like time.Sleep, but returns early with ctx.Err() as
// soon as ctx ends. It returns nil once the whole of d has passed, and returns
// ctx.Err() at once if ctx has already ended. It is the Go form of
// setTimeout(ms, value, { signal }) from Node's timers/promises.
func Sleep(ctx context.Context, d time.Duration) error {
	// TODO(task 2): wait for whichever comes first, a timer (time.NewTimer)
	// or the end of the context (ctx.Done()), in one select — and stop the
	// timer if you return before it fires (no test can see a forgotten Stop
	// since Go 1.23; it is still what the code means).
	return errNotImplemented
}
