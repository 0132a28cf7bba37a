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
	// TODO(task 6): derive the merged context from one of them with
	// context.WithCancelCause, and listen to the other with
	// context.AfterFunc. Keep the stop function AfterFunc returns: the
	// registration must not outlive the merged context.
	return notImplemented()
}
