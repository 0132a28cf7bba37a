package main

import (
	"sync"
	"time"
)

// outcome is what a call to the stock service tells the breaker.
type outcome int

const (
	// noVerdict: the call says nothing about the stock service — our own
	// client left, or the handler ended without saying. It is the zero
	// value, so a forgotten outcome is no verdict, never a timeout.
	noVerdict outcome = iota
	answered          // the stock service answered in time, well or badly
	timedOut          // our timeout cancelled the call
)

// breaker fails fast while the stock service keeps timing out: the talk's
// second "next step" (the rules: the README, task 6). Its methods are safe
// for concurrent use: every handler calls them.
type breaker struct {
	failAfter   int           // consecutive timeouts that open the breaker; 0 never opens it
	minCoolDown time.Duration // the first cool-down
	maxCoolDown time.Duration // the longest cool-down

	// One mutex for all the state below: "is the trial out? then it is
	// mine" is a check and a write that must happen as one step, or two
	// handlers both see "no trial out" and both go.
	mu       sync.Mutex
	gen      int           // the state calls begin in: one more each time it opens or closes
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
// positive, it may not: answer 503 and let the client retry after wait.
// Otherwise call it, defer done(noVerdict) at once, and call done(answered)
// or done(timedOut) as soon as you know: only the first call of done counts.
func (b *breaker) allow() (done func(outcome), wait time.Duration) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.open {
		if wait := time.Until(b.until); wait > 0 {
			return func(outcome) {}, wait
		}
		if b.trialing {
			// One trial at a time. Letting every request through once the
			// cool-down is over would send the whole queue to a stock
			// service we just decided was drowning. The others retry after
			// the current cool-down, whole, as at its start: the shortest one
			// would bring them all back every second of a 30s back-off.
			return func(outcome) {}, b.coolDown
		}
		b.trialing = true
	}
	// done is bound to the state the call begins in: when it reports, the
	// breaker may have opened or closed since, and then it counts for nothing.
	gen := b.gen
	var once sync.Once
	return func(o outcome) { once.Do(func() { b.record(gen, o) }) }, 0
}

// record takes in how a call that allow let through in state gen ended.
func (b *breaker) record(gen int, o outcome) {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch {
	case gen != b.gen:
		// The call began before the breaker last opened or closed: it tells
		// of the stock service as it was then. Counted now, its timeout
		// would join the next run of timeouts, or its answer close a
		// breaker that only the trial may close.
	case b.open && o == noVerdict:
		// While open, only the trial is let through: this is the trial, and
		// it proved nothing. The next request will be the trial.
		// This is why done must be deferred: a trial that never reports
		// leaves trialing set, and the breaker open for good.
		b.trialing = false
	case b.open && o == timedOut:
		b.trialing = false
		b.coolDown = min(2*b.coolDown, b.maxCoolDown)
		b.until = time.Now().Add(b.coolDown)
	case b.open: // the trial, answered in time, even with a 502: the stock service is back
		b.trialing, b.open, b.timeouts = false, false, 0
		b.gen++
	case o == timedOut:
		b.timeouts++
		if b.failAfter > 0 && b.timeouts >= b.failAfter {
			b.open, b.coolDown = true, b.minCoolDown
			b.until = time.Now().Add(b.coolDown)
			b.gen++
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
