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
	// Why a ticker, and not time.Sleep or time.After?
	//
	// time.Sleep cannot be interrupted: a caller who leaves halfway through
	// a 5 s wait would wait the rest of it. A select on a timer's channel and
	// ctx.Done() takes whichever comes first.
	//
	// time.After(interval) in the loop would work, but it starts a new timer
	// after each poll has finished, so a poll that takes 2 s pushes every
	// later poll back by 2 s. A time.Ticker ticks on its own schedule.
	//
	// Since Go 1.23 an unstopped ticker is garbage collected and needs no
	// draining (the README's "Timers since Go 1.23"); Stop still says when
	// we are done with it.
	ticker := time.NewTicker(interval)
	defer ticker.Stop()
	for {
		// Ask before each poll, and not only in the select: when a tick and
		// the end of ctx are both ready, select picks one at random, and a
		// poll started for a caller who has left is wasted work.
		if ctx.Err() != nil {
			// context.Cause, not ctx.Err(): the caller's reason (a
			// shutdown, a new interval) tells more than "context canceled".
			// A context ended without a reason gives ctx.Err() itself.
			return context.Cause(ctx)
		}
		poll(ctx)
		select {
		case <-ticker.C:
		case <-ctx.Done():
		}
	}
}
