package abort

import "context"

// OnAbort arranges for listener to be called once, in a goroutine of its
// own, when ctx ends — at once if ctx has already ended. The remove function
// unregisters it and reports whether it did: true if listener had not been
// started and now never will be, false if it had already been started or
// removed. It is signal.addEventListener('abort', listener, { once: true }),
// and remove is removeEventListener.
func OnAbort(ctx context.Context, listener func()) (remove func() bool) {
	// TODO(task 3): register listener with context.AfterFunc (Go 1.21), and
	// let remove tell its caller whether it stopped the call.
	return func() bool { return true }
}

// ThrowIfAborted is signal.throwIfAborted() for a context: it returns nil
// while ctx is live. Once ctx has ended it returns an error that errors.Is
// matches against both ctx.Err() (context.Canceled or
// context.DeadlineExceeded) and the reason the context was given
// (context.Cause): abort(reason) and signal.reason.
func ThrowIfAborted(ctx context.Context) error {
	// TODO(task 4): read the reason with context.Cause (Go 1.20) — ctx.Err()
	// never carries it — and return an error that wraps both (fmt.Errorf
	// accepts more than one %w), without saying "context canceled" twice
	// for a plain cancel.
	return errNotImplemented
}
