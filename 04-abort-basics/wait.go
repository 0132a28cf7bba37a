package abort

import "context"

// Do calls fn in a goroutine of its own and returns its result — or, as soon
// as ctx ends, the zero value and ctx.Err(), without waiting for fn. If ctx
// has already ended, Do returns at once and does not call fn.
//
// Do does not stop fn: fn cannot be told to stop, so it runs to the end, and
// its result is dropped. Do only stops the caller from waiting. Use it for
// work that cannot take a context; prefer passing ctx to the work itself,
// which can then really stop (that is step 05).
func Do[T any](ctx context.Context, fn func() (T, error)) (T, error) {
	// TODO(task 8): run fn in a goroutine that sends its result on a
	// channel, and select on that channel and ctx.Done(). The goroutine must
	// be able to finish even when nobody is listening any more: mind the
	// channel's capacity.
	var zero T
	return zero, errNotImplemented
}
