package main

import (
	"sync"
	"time"
)

// outcome is how a call to the stock service ended, as the breaker sees it.
type outcome int

const (
	answered   outcome = iota // the stock service answered in time (well or badly)
	timedOut                  // our timeout cancelled the call
	callerLeft                // our client left first: says nothing about the stock service
)

// breaker fails fast while the stock service keeps timing out: the talk's
// second "next step". After failAfter consecutive timeouts it opens: every
// request is refused at once, for a cool-down. Then it lets one trial
// request through. A trial answered in time closes it and resets the
// back-off; a trial that times out re-opens it, for twice the cool-down,
// up to maxCoolDown.
//
// Its methods are safe for concurrent use: every handler calls them.
type breaker struct {
	failAfter   int           // consecutive timeouts that open the breaker; 0 never opens it
	minCoolDown time.Duration // the first cool-down
	maxCoolDown time.Duration // the longest cool-down

	mu       sync.Mutex
	timeouts int           // consecutive timeouts, while closed
	open     bool          // failing fast, or waiting for a trial's verdict
	until    time.Time     // while open: refuse until then
	coolDown time.Duration // the cool-down that ends at until
	trialing bool          // the trial request is out
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
func (b *breaker) allow() (trial bool, wait time.Duration) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.open {
		return false, 0
	}
	if wait := time.Until(b.until); wait > 0 {
		return false, wait
	}
	if b.trialing {
		// One trial at a time. Letting every request through once the
		// cool-down is over would send the whole queue to a stock service
		// we just decided was drowning.
		return false, b.minCoolDown
	}
	b.trialing = true
	return true, 0
}

// record tells the breaker how a call it allowed ended.
func (b *breaker) record(trial bool, o outcome) {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch {
	case trial && o == callerLeft:
		// No verdict: the next request will be the trial. Forgetting this
		// line leaves trialing set forever, and the breaker open for good.
		b.trialing = false
	case trial && o == timedOut:
		b.trialing = false
		b.coolDown = min(2*b.coolDown, b.maxCoolDown)
		b.until = time.Now().Add(b.coolDown)
	case trial: // answered in time: the stock service is back
		b.trialing, b.open, b.timeouts = false, false, 0
	case b.open:
		// A call that started before the breaker opened: only the trial
		// decides when it closes.
	case o == timedOut:
		b.timeouts++
		if b.failAfter > 0 && b.timeouts >= b.failAfter {
			b.open, b.coolDown = true, b.minCoolDown
			b.until = time.Now().Add(b.coolDown)
		}
	case o == answered:
		b.timeouts = 0 // in a row: one answer in time starts the count again
	}
}

// wholeSeconds is d in whole seconds, rounded up, for a Retry-After header:
// a client told "0" would retry at once, into the cool-down.
func wholeSeconds(d time.Duration) int {
	return int((d + time.Second - 1) / time.Second)
}
