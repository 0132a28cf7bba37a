package abort

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// ErrTooSlow is the reason WithinTimeout gives its context when its own
// timer fires.
var ErrTooSlow = errors.New("took too long")

// WithinTimeout calls fn with a context derived from parent that ends after
// d, like passing AbortSignal.timeout(ms) to fetch, or as soon as fn returns,
// so that anything fn started with it is told to stop. It returns fn's error.
// When that context has ended, it adds the context's reason to that error, so
// that, for an fn whose error wraps ctx.Err(), errors.Is tells why (Go's
// HTTP/1 transport mostly returns the cause itself: there only ErrTooSlow):
//   - our own timeout: context.DeadlineExceeded and ErrTooSlow;
//   - the caller cancelled parent: context.Canceled (and parent's cause);
//   - parent's own, earlier deadline: context.DeadlineExceeded, not ErrTooSlow.
func WithinTimeout(parent context.Context, d time.Duration, fn func(ctx context.Context) error) error {
	// WithTimeoutCause (Go 1.21) labels *our* timeout. Plain WithTimeout
	// would leave DeadlineExceeded as the only clue, and the caller's own
	// deadline says exactly the same: a menu service could not tell "the
	// stock service was too slow" (504) from "our client's deadline passed".
	ctx, cancel := context.WithTimeoutCause(parent, d, ErrTooSlow)
	// Cancel when fn returns early: it stops the timer and unregisters ctx
	// from parent now, not d later.
	defer cancel()

	err := fn(ctx)
	if err == nil || ctx.Err() == nil {
		return err // fn finished, or failed on its own, in time
	}
	// fn most likely returned ctx.Err(), which only says DeadlineExceeded or
	// Canceled. The reason is in context.Cause, never in ctx.Err().
	cause := context.Cause(ctx)
	if errors.Is(err, cause) {
		return err
	}
	return fmt.Errorf("%w: %w", err, cause)
}
