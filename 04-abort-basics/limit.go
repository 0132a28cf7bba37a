package abort

import (
	"context"
	"errors"
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
	// TODO(task 5): give fn a context that ends after d with ErrTooSlow as
	// its reason (context.WithTimeoutCause, Go 1.21), cancel it when fn
	// returns, and when fn fails after that context has ended, add the
	// reason (context.Cause) to fn's error.
	return errNotImplemented
}
