package abort

import (
	"context"
	"time"
)

// Detach returns a context for work that must outlive ctx — such as writing
// an audit line after the response has been sent. It keeps ctx's values but
// not its cancellation or deadline, and ends d after Detach is called (or
// when its cancel function is called). Cancelling it never affects ctx:
// cancellation flows from parent to child, never the reverse.
func Detach(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	// TODO(task 7): keep ctx's values but drop its cancellation with
	// context.WithoutCancel (Go 1.21), then bound the result with a timeout
	// of its own.
	return notImplemented()
}
