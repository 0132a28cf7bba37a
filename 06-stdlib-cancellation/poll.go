package platform

import (
	"context"
	"fmt"
	"time"
)

// Poll checks the stock levels with poll at once, then once every interval,
// until ctx ends. It hands ctx to each poll, so that a poll in progress ends
// with it too.
//
// Poll keeps its schedule: polls start at 0, interval, 2×interval, … after
// Poll was called, however long each poll takes (shorter than interval).
//
// Poll returns the moment ctx ends, even halfway through a wait, with
// context.Cause(ctx): the reason the caller gave, or context.Canceled or
// context.DeadlineExceeded. If ctx has already ended, Poll returns its
// cause at once without polling. Poll never returns nil: it polls until it
// is told to stop, or returns an error at once for an interval of 0 or less.
func Poll(ctx context.Context, interval time.Duration, poll func(ctx context.Context)) error {
	if interval <= 0 {
		return fmt.Errorf("poll every %v: want an interval of more than 0", interval) // time.NewTicker would panic
	}
	// TODO(task 1): poll at once, then on every tick of a time.Ticker, and
	// wait for the next tick in a select that also listens on ctx.Done(), so
	// that an ending context interrupts the wait. Return context.Cause(ctx).
	return errNotImplemented
}
