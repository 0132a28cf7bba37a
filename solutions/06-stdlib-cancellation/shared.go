package platform

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"time"

	"golang.org/x/sync/singleflight"
)

// SharedStock asks a slow stock service for its levels on behalf of many
// callers at once: callers who ask while a request is under way share it
// instead of each sending their own.
type SharedStock struct {
	client  *http.Client
	url     string
	timeout time.Duration
	calls   singleflight.Group
}

// NewSharedStock returns a SharedStock that asks the stock service at url
// through client, and gives up on a request after timeout whoever is still
// waiting for it.
func NewSharedStock(client *http.Client, url string, timeout time.Duration) *SharedStock {
	return &SharedStock{client: client, url: url, timeout: timeout}
}

// Levels returns the stock service's levels. If a request is already under
// way, Levels waits for its answer rather than asking again.
//
// A caller whose ctx has already ended gets the reason (context.Cause) and
// starts nothing. A caller whose ctx ends while it waits stops waiting at
// once and gets the reason; the request goes on for the others, and callers
// who come while it runs still join it. The request itself
// ends after the SharedStock's timeout, even if nobody is left waiting, and
// then every caller still waiting gets its error.
//
// Each caller gets Levels of its own: changing them changes nobody else's.
func (s *SharedStock) Levels(ctx context.Context) (Levels, error) {
	// Look first: DoChan would start the shared call for a caller who has
	// already left, and with no other caller, it would run for nobody.
	if ctx.Err() != nil {
		return nil, fmt.Errorf("waiting for the stock levels: %w", context.Cause(ctx))
	}
	// DoChan, not Do: Do makes every caller wait until the shared call
	// returns, however impatient, because it has no context to look at.
	// DoChan hands back a channel we can select on beside ctx.Done().
	results := s.calls.DoChan(s.url, func() (any, error) {
		// This call belongs to every caller who joins it, not to the one
		// who happened to start it: with ctx here, that first caller
		// leaving would cancel the request under everybody else.
		// WithoutCancel keeps ctx's values (a trace id, a logger) and drops
		// its cancellation and deadline; then the call needs a bound of its
		// own, or an upstream that hangs would hold it, and everybody
		// waiting on it, forever.
		callCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.timeout)
		defer cancel()
		return askStock(callCtx, s.client, s.url)
	})
	// No Forget needed after an error: the group forgets a key the moment
	// its call returns, so the next caller asks again. Forget is for the
	// other case, sending the next callers a fresh request while one is
	// still under way (after a restock, say).
	select {
	case r := <-results:
		if r.Err != nil {
			return nil, r.Err
		}
		// Every caller gets the same map: hand each a copy of its own, or
		// one caller's change would be every caller's.
		return maps.Clone(r.Val.(Levels)), nil
	case <-ctx.Done():
		// We leave; the call goes on and delivers to the channel, which
		// DoChan made with room for one answer: nothing blocks, nothing
		// leaks.
		return nil, fmt.Errorf("waiting for the stock levels: %w", context.Cause(ctx))
	}
}
