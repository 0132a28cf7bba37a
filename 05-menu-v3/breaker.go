package main

import (
	"time"
)

// outcome is how a call to the stock service ended, as the breaker sees it.
type outcome int

// The outcomes; task 6 records them.
const (
	//lint:ignore U1000 task 6 records it
	answered outcome = iota // the stock service answered in time (well or badly)
	//lint:ignore U1000 task 6 records it
	timedOut // our timeout cancelled the call
	//lint:ignore U1000 task 6 records it
	callerLeft // our client left first: says nothing about the stock service
)

// breaker fails fast while the stock service keeps timing out: the talk's
// second "next step". After failAfter consecutive timeouts it opens: every
// request is refused at once, for a cool-down. Then it lets one trial
// request through. A trial answered in time closes it and resets the
// back-off; a trial that times out re-opens it, for twice the cool-down,
// up to maxCoolDown.
//
// Its methods must be safe for concurrent use: every handler calls them.
type breaker struct {
	failAfter   int           // consecutive timeouts that open the breaker; 0 never opens it
	minCoolDown time.Duration // the first cool-down
	maxCoolDown time.Duration // the longest cool-down

	// TODO(task 6): the breaker's state, and a sync.Mutex to guard it:
	// timeouts in a row, whether it is open and until when, the cool-down
	// now running, whether the trial request is out.
}

// newBreaker returns a closed breaker with the default settings: open after
// 5 timeouts in a row, cool down for 1s, 2s, 4s… up to 30s.
func newBreaker() breaker {
	return breaker{failAfter: 5, minCoolDown: time.Second, maxCoolDown: 30 * time.Second}
}

// allow says whether a request may call the stock service now. If wait is
// positive, it may not: answer 503 and let the client retry after wait. If
// trial is true, it is the one request whose outcome decides whether the
// breaker closes; record it with trial set.
//
//lint:ignore U1000 task 6 calls it
func (b *breaker) allow() (trial bool, wait time.Duration) {
	// TODO(task 6): while open, refuse until the cool-down is over; then
	// let exactly one trial through, and refuse the others while it is out,
	// with a wait of minCoolDown: Retry-After: 1, the shortest cool-down.
	return false, 0 // for now: always closed
}

// record tells the breaker how a call it allowed ended.
//
//lint:ignore U1000 task 6 calls it
func (b *breaker) record(trial bool, o outcome) {
	// TODO(task 6): count timeouts in a row, open after failAfter of them;
	// a trial that times out re-opens for twice the cool-down (at most
	// maxCoolDown), a trial answered in time closes and resets the back-off,
	// a trial whose client left decides nothing — the next request tries.
}

// wholeSeconds is d in whole seconds, rounded up, for a Retry-After header:
// a client told "0" would retry at once, into the cool-down.
//
//lint:ignore U1000 task 6 uses it for Retry-After
func wholeSeconds(d time.Duration) int {
	return int((d + time.Second - 1) / time.Second)
}
