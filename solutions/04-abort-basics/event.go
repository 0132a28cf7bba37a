package abort

import (
	"context"
	"errors"
	"fmt"
)

// OnAbort arranges for listener to be called once, in a goroutine of its
// own, when ctx ends — at once if ctx has already ended. The remove function
// unregisters it and reports whether it did: true if listener had not been
// started and now never will be, false if it had already been started or
// removed. It is signal.addEventListener('abort', listener, { once: true }),
// and remove is removeEventListener.
func OnAbort(ctx context.Context, listener func()) (remove func() bool) {
	// context.AfterFunc (Go 1.21) does exactly this, and its stop function
	// already reports whether it stopped the call — so hand it back as is.
	//
	// The tempting alternative, from before Go 1.21, is a goroutine that
	// selects on ctx.Done() and a "removed" channel, with a remove function
	// that closes the channel and returns true. It cannot tell the caller
	// whether the listener has already started, so the caller cannot know
	// whether it still has to clean up after it. It also holds a goroutine
	// for every listener for as long as ctx lives.
	return context.AfterFunc(ctx, listener)
}

// ThrowIfAborted is signal.throwIfAborted() for a context: it returns nil
// while ctx is live. Once ctx has ended it returns an error that errors.Is
// matches against both ctx.Err() (context.Canceled or
// context.DeadlineExceeded) and the reason the context was given
// (context.Cause): abort(reason) and signal.reason.
func ThrowIfAborted(ctx context.Context) error {
	err := ctx.Err()
	if err == nil {
		return nil
	}
	// ctx.Err() only ever says Canceled or DeadlineExceeded: the reason
	// passed to a CancelCauseFunc, or to WithTimeoutCause, is kept apart
	// and only context.Cause returns it. The first reason wins: a later
	// cancel(other) changes nothing.
	cause := context.Cause(ctx)
	if errors.Is(cause, err) {
		// A plain cancel: the cause is ctx.Err() itself (or wraps it).
		return cause
	}
	// Returning the cause alone is the other tempting shortcut: callers
	// testing errors.Is(err, context.Canceled) would stop recognising a
	// cancellation. Wrap both (two %w verbs: Go 1.20).
	return fmt.Errorf("%w: %w", err, cause)
}
