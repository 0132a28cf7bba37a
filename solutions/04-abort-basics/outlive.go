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
	// Three tempting alternatives, all wrong:
	//   - ctx itself: it is cancelled the moment the handler returns, so the
	//     audit line is cut short exactly when it is needed;
	//   - context.Background(): survives, but loses ctx's values (the request
	//     ID, the trace) that the audit line should carry;
	//   - context.WithoutCancel(ctx) alone: survives forever if the audit
	//     store hangs — and holds up a graceful shutdown with it.
	// WithoutCancel (Go 1.21) keeps the values and drops the cancellation
	// and the deadline; WithTimeout puts a bound of our own back.
	return context.WithTimeout(context.WithoutCancel(ctx), d)
}
