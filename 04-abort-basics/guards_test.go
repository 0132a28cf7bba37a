package abort

// Guards: each test here rejects one wrong answer of the mistake catalog
// (solutions/04-abort-basics/MISTAKES.md); the spec is in the other files.

import (
	"context"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"go.uber.org/goleak"
)

// A remove that leaves a goroutine waiting on the context (in real time: a
// bubble cannot end with that goroutine in it).
func TestOnAbortRemoveLeavesNoGoroutine(t *testing.T) {
	before := goleak.IgnoreCurrent()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if remove := OnAbort(ctx, func() {}); remove != nil {
		remove()
	}
	if g := leaked(before); g != "" {
		t.Errorf("after remove(): %s; want no goroutine left (context.AfterFunc's stop unregisters)", g)
	}
}

// A merge that does not release its registrations on a and b when it ends: the
// context package watches an opaqueContext from a goroutine, which lives as long.
func TestMergeLeavesNoGoroutine(t *testing.T) {
	for _, end := range []string{"own cancel", "first ends", "second ends"} {
		t.Run(end, func(t *testing.T) {
			before := goleak.IgnoreCurrent()
			a, endA := context.WithCancel(context.Background())
			b, endB := context.WithCancel(context.Background())
			defer endA()
			defer endB()
			ctx, cancel := merge(t, opaqueContext{a}, opaqueContext{b})
			map[string]func(){"own cancel": cancel, "first ends": endA, "second ends": endB}[end]()
			select {
			case <-ctx.Done():
			case <-time.After(2 * time.Second):
				t.Fatalf("merged context still live 2s after %s", end)
			}
			// before the cleanup's cancel: ending, however, releases them
			if g := leaked(before); g != "" {
				t.Errorf("after %s: %s; want none left watching a or b (call AfterFunc's stop when the merged context ends)", end, g)
			}
		})
	}
}

// opaqueContext hides its context from the context package, which must then
// watch it from a goroutine.
type opaqueContext struct{ context.Context }

func (opaqueContext) Value(any) any { return nil }

// A Do whose goroutine sends in a select with a default case drops a result
// that comes before Do waits: lateWaiter makes that order happen every time.
func TestDoKeepsAnEarlyResult(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		v, err := Do(&lateWaiter{Context: ctx}, func() (string, error) { return "pistachio", nil })
		if v != "pistachio" || err != nil {
			t.Errorf("Do(ctx, fn done before Do waited) = (%q, %v); want (pistachio, <nil>) (a buffered channel and a plain send)", v, err)
		}
	})
}

// lateWaiter makes Do late to its own select: Done first lets every other
// goroutine of the bubble run as far as it can (fn returns, its result is sent
// or dropped), relying only on what the Context interface documents.
type lateWaiter struct {
	context.Context
	busy atomic.Bool // synctest.Wait must never run in two goroutines at once
}

func (c *lateWaiter) Done() <-chan struct{} {
	if c.busy.CompareAndSwap(false, true) {
		defer c.busy.Store(false)
		synctest.Wait()
	}
	return c.Context.Done()
}
