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
	var zero T
	if err := ctx.Err(); err != nil {
		return zero, err
	}

	type result struct {
		value T
		err   error
	}
	// Buffered, with room for the one result: the goroutine's send never
	// blocks, so the goroutine can always finish, even after we have stopped
	// listening. An unbuffered channel here is menu v2's leak: once ctx has
	// ended nobody receives, and the goroutine waits on its send forever.
	// Closing results when Do returns would make that late send panic, and
	// a send in a select with a default case would drop a result the select
	// below is about to wait for.
	results := make(chan result, 1)
	go func() {
		value, err := fn()
		results <- result{value, err}
	}()

	// Promise.race between the work and the abort event.
	select {
	case r := <-results:
		return r.value, r.err
	case <-ctx.Done():
		return zero, ctx.Err()
	}
}
