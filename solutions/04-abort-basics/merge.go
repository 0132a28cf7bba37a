package abort

import "context"

// Merge returns a context that ends as soon as a or b ends, with the reason
// (context.Cause) of the one that ended first, like AbortSignal.any([a, b]).
// If either has already ended, so has the merged context when Merge returns.
// The merged context carries a's values and deadline; b's deadline still ends
// it, but only a's is reported by Deadline. Its Err is a's when a ended it,
// else context.Canceled, even when b's deadline ended it: only Cause tells.
// Cancelling the merged context, or its ending for any reason, releases
// everything Merge registered on a and b.
// As with context.WithCancel, the caller must call cancel.
func Merge(a, b context.Context) (context.Context, context.CancelFunc) {
	// Deriving from a gives us a's cancellation, values and deadline for free;
	// the context package also unregisters ctx from a when ctx is cancelled.
	ctx, cancel := context.WithCancelCause(a)

	// AbortSignal.any([a, b]) is already aborted if b is. context.AfterFunc
	// would see that too, but from another goroutine, a moment later.
	if b.Err() != nil {
		cancel(context.Cause(b))
		return ctx, func() { cancel(nil) }
	}

	// b is not our parent, so listen to it: when b ends, end ctx with b's
	// reason. context.Cause(ctx) then reports it; the first reason wins.
	// ctx.Err() says Canceled, even for b's deadline: a CancelCauseFunc
	// sets the cause, never Err (only a's end passes a's Err down).
	stopB := context.AfterFunc(b, func() { cancel(context.Cause(b)) })

	// The tempting mistake is to drop stopB. The registration on b then
	// outlives the merge: b holds our callback (and, for a context the
	// context package does not know, a goroutine waiting on b.Done()) until
	// b ends — for a long-lived b such as a server's shutdown signal, one more
	// for every request, forever. So unregister from b when ctx ends, however
	// it ends: our cancel, a, or b (then stopB just reports false).
	context.AfterFunc(ctx, func() { stopB() })

	return ctx, func() { cancel(nil) } // nil: the reason is context.Canceled
}
