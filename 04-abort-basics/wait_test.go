package abort

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"go.uber.org/goleak"
)

func TestDo(t *testing.T) {
	begun(t, "Do", func() error {
		_, err := Do(context.Background(), func() (string, error) { return "", nil })
		return err
	})
	errEmpty := errors.New("tub empty")
	for _, tc := range []struct {
		name              string
		deadline, fnTakes time.Duration // ctx's, with a reason (see newCtx); how long fn takes
		want, fix         string
	}{
		{name: "fn returns", deadline: time.Hour, fnTakes: 3 * time.Second, want: `("pistachio", tub empty) after 3s, fn called`, fix: "return fn's value and error"},
		{name: "fn done first", deadline: time.Hour, want: `("pistachio", tub empty) after 0s, fn called`, fix: "a buffered channel and a plain send"},
		{name: "already ended", deadline: -1, want: `("", context deadline exceeded) after 0s, fn not called`, fix: "return ctx.Err() first, and start nothing"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ctx, _ := newCtx(t, tc.deadline, 0, errors.New("customer left"))
				ctx = &lateWaiter{Context: ctx} // Do waits only once fn has returned, or is sleeping
				var called atomic.Bool
				fn := func() (string, error) { called.Store(true); time.Sleep(tc.fnTakes); return "pistachio", errEmpty }
				start := time.Now()
				v, err := Do(ctx, fn)
				since := time.Since(start)
				synctest.Wait() // fn has been called by now, if Do started it
				got := fmt.Sprintf("(%q, %v) after %v, fn %s", v, err, since, map[bool]string{true: "called", false: "not called"}[called.Load()])
				if got != tc.want {
					t.Errorf("Do = %s; want %s (%s)", got, tc.want, tc.fix)
				}
			})
		})
	}
}

// lateWaiter's Done first lets every other goroutine of the bubble run as far
// as it can (synctest.Wait, never in two goroutines at once): Do's select comes late.
type lateWaiter struct {
	context.Context
	busy atomic.Bool
}

func (c *lateWaiter) Done() <-chan struct{} {
	if c.busy.CompareAndSwap(false, true) {
		synctest.Wait()
		c.busy.Store(false)
	}
	return c.Context.Done()
}

// In real time: Do's goroutine, left blocked, would crash a synctest bubble.
func TestDoLetsItsGoroutineFinish(t *testing.T) {
	begun(t, "Do", func() error {
		_, err := Do(context.Background(), func() (string, error) { return "", nil })
		return err
	})
	before := goleak.IgnoreCurrent()
	inner, cancel := newCtx(t, 5*time.Second, 0, errors.New("customer left")) // a reason, which ctx.Err() does not carry
	ctx := expired{opaque(inner)}
	release := make(chan struct{})
	var waited atomic.Bool
	v, err := Do(ctx, func() (string, error) {
		cancel() // the deadline passes while fn runs
		select {
		case <-release:
		case <-time.After(5 * time.Second):
			waited.Store(true) // only a Do that waits for fn gets here
		}
		return "too late", nil
	})
	close(release)                     // fn finishes, after Do has returned
	left := goleak.Find(before) != nil // Do's goroutine, if it cannot finish
	switch {
	case waited.Load():
		t.Errorf("Do(ctx past its deadline while fn runs) waited for fn; want it to return at once (select on ctx.Done() too)")
	case v != "" || err != context.DeadlineExceeded:
		t.Errorf("Do(ctx past its deadline while fn runs) = (%q, %v); want (\"\", %v) (return ctx.Err() itself, not the cause or Canceled)", v, err, context.DeadlineExceeded)
	}
	if left {
		t.Errorf("Do's goroutine still blocked after fn returned; want it finished (give the result channel room for one result)")
	}
}

// expired ends as a deadline does (ExampleDo cancels), with no real time passing.
type expired struct{ opaqueContext }

func (c expired) Err() error {
	if c.opaqueContext.Err() == nil {
		return nil
	}
	return context.DeadlineExceeded
}

// Promise.race([work, abortEvent]), as in menu v2: the caller stops waiting, the work goes on.
func ExampleDo() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Hour) // the order's deadline, far away
	started, release, scooped := make(chan struct{}), make(chan struct{}), make(chan struct{})
	flavour, err := Do(ctx, func() (string, error) {
		close(started)
		cancel() // the customer walks out while we scoop...
		select { // ...and scooping cannot be cancelled: it ends when it ends
		case <-release:
		case <-time.After(time.Second): // Do did not return: it waited for us
		}
		close(scooped)
		return "pistachio", nil
	})
	fmt.Printf("Do: %q, %v\n", flavour, err)

	select {
	case <-started: // the work was not stopped: it runs to the end, for nobody
		close(release)
		<-scooped
		fmt.Println("scooped anyway")
	default:
		fmt.Println("Do never started the work")
	}
	// Output:
	// Do: "", context canceled
	// scooped anyway
}
