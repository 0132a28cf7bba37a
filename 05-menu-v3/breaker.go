package main

import (
	"sync"
	"time"
)

// outcome is what a call to the stock service tells the breaker.
type outcome int

// The outcomes; task 6 reports them.
const (
	// noVerdict: the call says nothing about the stock service — our own
	// client left, or the handler ended without saying. It is the zero
	// value, so a forgotten outcome is no verdict, never a timeout.
	//
	//lint:ignore U1000 task 6 reports it
	noVerdict outcome = iota
	//lint:ignore U1000 task 6 reports it
	answered // the stock service answered in time, well or badly
	//lint:ignore U1000 task 6 reports it
	timedOut // our timeout cancelled the call
)

// breaker fails fast while the stock service keeps timing out: the talk's
// second "next step". After failAfter consecutive timeouts it opens: every
// request is refused at once, for a cool-down. Then it lets one trial
// request through. A trial answered in time closes it and resets the
// back-off; a trial that times out re-opens it, for twice the cool-down,
// up to maxCoolDown; a trial with no verdict lets the next request try.
// A call counts only in the state it began in: one let through before the
// breaker opened that ends later — in the cool-down, while the trial is
// out, or after the trial closed it; answered in time or timed out —
// changes nothing, neither whether it is open, nor the cool-down, nor the
// count.
//
// Its methods must be safe for concurrent use: every handler calls them.
type breaker struct {
	failAfter   int           // consecutive timeouts that open the breaker; 0 never opens it
	minCoolDown time.Duration // the first cool-down
	maxCoolDown time.Duration // the longest cool-down

	// TODO(task 6): the breaker's state, and a sync.Mutex to guard it:
	// timeouts in a row, whether it is open and until when, the cool-down
	// now running, whether the trial request is out, and which state calls
	// begin in now (a number, one more each time it opens or closes).
}

// newBreaker returns a closed breaker with the default settings: open after
// 5 timeouts in a row, cool down for 1s, 2s, 4s… up to 30s.
func newBreaker() breaker {
	return breaker{failAfter: 5, minCoolDown: time.Second, maxCoolDown: 30 * time.Second}
}

// allow says whether a request may call the stock service now.
//
// If wait is positive, it may not: answer 503 and let the client retry after
// wait. Otherwise call the stock service, and tell the breaker how the call
// ended with done — as a context's cancel: defer done(noVerdict) at once,
// so that every way out of the handler (an early return, a panic) reaches
// the breaker, and call done(answered) or done(timedOut) as soon as you know.
// Only the first call of done counts; the others do nothing.
func (b *breaker) allow() (done func(outcome), wait time.Duration) {
	// TODO(task 6): while open, refuse until the cool-down is over; then
	// let exactly one trial through, and refuse the others while it is
	// out, with a wait of the current cool-down, whole, as at its start.
	// Bind done to the state the call begins in: gen, the breaker's now.
	gen := 0
	var once sync.Once
	return func(o outcome) { once.Do(func() { b.record(gen, o) }) }, 0
}

// record takes in how a call that allow let through in state gen ended.
func (b *breaker) record(gen int, o outcome) {
	// TODO(task 6): count timeouts in a row, open after failAfter of them
	// for minCoolDown; an answer in time starts the count again. A trial that times out
	// re-opens for twice the cool-down (at most maxCoolDown), a trial
	// answered in time closes and resets the back-off, a trial with no
	// verdict decides nothing — the next request tries. A call whose gen
	// is not the breaker's now began before it opened or closed: it
	// changes nothing when it ends, answered or timed out.
}

// wholeSeconds is d in whole seconds, rounded up, for a Retry-After header:
// a client told "0" would retry at once, into the cool-down.
//
//lint:ignore U1000 task 6 uses it for Retry-After
func wholeSeconds(d time.Duration) int {
	return int((d + time.Second - 1) / time.Second)
}
