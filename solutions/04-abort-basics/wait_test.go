package abort

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/icecreamcorp/go-cancellation-workshop/internal/leakcheck"
	"github.com/stretchr/testify/assert"
	"go.uber.org/goleak"
)

func TestDo(t *testing.T) {
	leakcheck.Check(t)

	t.Run("returns fn's value and error", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			n, err := Do(context.Background(), func() (int, error) { return 8532, nil })
			assert.Equal(t, 8532, n, "Do(ctx, fn returning 8532) (task 8: return fn's value)")
			assert.NoError(t, err, "Do(ctx, fn returning 8532, nil) (task 8: return fn's error)")
			errEmpty := errors.New("tub empty")
			_, err = Do(context.Background(), func() (int, error) { return 0, errEmpty })
			assert.ErrorIs(t, err, errEmpty, "Do(ctx, fn failing) (task 8: return fn's error)")
		})
	})

	t.Run("waits for fn as long as the context is live", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			do := start(func() outcome[string] {
				v, err := Do(context.Background(), func() (string, error) { time.Sleep(3 * time.Second); return "pistachio", nil })
				return outcome[string]{v, err}
			})
			time.Sleep(3*time.Second - time.Nanosecond)
			synctest.Wait()
			if do.returned() {
				assert.Fail(t, fmt.Sprintf("Do(live ctx, fn taking 3s) had already returned %v at 3s-1ns; want it still waiting for fn (task 8)", do.got))
			}
			time.Sleep(time.Nanosecond)
			synctest.Wait()
			if assert.True(t, do.returned(), "Do(live ctx, fn taking 3s) still waiting at 3s (task 8: wait for fn's result)") {
				assert.Equal(t, outcome[string]{value: "pistachio"}, do.got, "Do(live ctx, fn taking 3s) (task 8: return fn's result)")
			}
			do.wait(time.Hour)
		})
	})

	t.Run("returns fn's result even when fn finishes before Do waits for it", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			late := &lateWaiter{Context: ctx, started: make(chan struct{}), release: make(chan struct{})}
			begin := time.Now()
			do := start(func() outcome[string] {
				v, err := Do(late, func() (string, error) {
					close(late.started)
					select {
					case <-late.release:
					case <-time.After(time.Second): // a Do that never asks for Done while fn runs
					}
					return "pistachio", nil
				})
				return outcome[string]{v, err}
			})
			if !do.wait(time.Minute) {
				assert.Fail(t, "Do(ctx with a 10s deadline, fn) still waiting after a minute (task 8: select on ctx.Done() as well as fn's result)")
				return
			}
			switch want := (outcome[string]{value: "pistachio"}); {
			case do.got == want:
			case !isClosed(late.started):
				assert.Fail(t, fmt.Sprintf("Do(live ctx, fn) returned %v without calling fn; want fn's result %v (task 8: run fn in a goroutine of its own)", do.got, want))
			case isClosed(late.release):
				assert.Fail(t, fmt.Sprintf("Do(ctx, fn) returned %v after %v; fn had returned %v just before Do began to wait in its select, and that result was lost "+
					"(task 8: give the result channel room for one result, make(chan T, 1), and send with a plain send — "+
					"a send in a select with a default case drops the result whenever nobody is receiving yet)", do.got, time.Since(begin), want))
			default:
				assert.Equal(t, want, do.got, "Do(live ctx, fn) (task 8: return fn's result)")
			}
		})
	})

	// In real time, outside a bubble: a Do that starts fn anyway, in a
	// goroutine whose send nobody takes, would leave that goroutine blocked
	// for good, and a bubble cannot end with a blocked goroutine in it — the
	// whole test binary would crash instead of this test failing.
	t.Run("does not call fn when the context has already ended", func(t *testing.T) {
		before := goleak.IgnoreCurrent()
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		var called atomic.Bool
		release := make(chan struct{})
		v, err := Do(ctx, func() (string, error) {
			called.Store(true)
			select {
			case <-release:
			case <-time.After(5 * time.Second): // a Do that calls fn itself, and waits for it
			}
			return "pistachio", nil
		})
		// goleak waits a moment for a goroutine on its way out; one Do
		// started for fn is still there, waiting in fn.
		leaked := goleak.Find(before)
		close(release)
		assert.ErrorIs(t, err, context.Canceled, "Do(cancelled ctx, fn) (task 8: check ctx.Err() first)")
		assert.Empty(t, v, "Do(cancelled ctx, fn) value; want the zero value (task 8)")
		assert.False(t, called.Load(), "Do(cancelled ctx, fn) called fn; want it not to start work nobody is waiting for (task 8: check ctx.Err() first)")
		if leaked != nil && !called.Load() {
			assert.Fail(t, "Do(cancelled ctx, fn) left a goroutine running (task 8: check ctx.Err() first, and start nothing)\n"+leaked.Error())
		}
	})
}

// This test runs in real time, outside a synctest bubble: a Do that leaks
// its goroutine would leave it blocked forever, and a bubble cannot end with
// a blocked goroutine in it — it would crash the test binary instead of
// failing this test. It runs in a child process (this test binary, started
// again), so that a goroutine that panics once fn returns — a send on a
// channel Do has closed — is reported here instead of ending every test.
func TestDoLetsItsGoroutineFinish(t *testing.T) {
	if !inChild() {
		out, crash := runInChild(t)
		if crash != "" {
			assert.Fail(t, "Do(ctx, fn) returned when ctx was cancelled; then fn returned, and Do's goroutine crashed the program: "+crash+
				" (task 8: never close the result channel when Do returns — the goroutine may still send on it; a buffer of one is all it needs)")
		} else if out != "" {
			assert.Fail(t, "what the test reported from its child process:\n"+out)
		}
		return
	}
	leakcheck.Check(t)
	before := goleak.IgnoreCurrent()
	const patience = 5 * time.Second // a correct Do takes microseconds

	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	started, finishing := make(chan struct{}), make(chan struct{})
	release := make(chan struct{})
	releaseFn := sync.OnceFunc(func() { close(release) })
	defer releaseFn()

	do := start(func() outcome[string] {
		v, err := Do(ctx, func() (string, error) {
			close(started)
			<-release // work that cannot be cancelled
			close(finishing)
			return "too late", nil
		})
		return outcome[string]{v, err}
	})
	select {
	case <-started:
	case <-do.done:
		assert.Fail(t, fmt.Sprintf("Do(live ctx, fn) returned %v without calling fn (task 8: run fn in a goroutine)", do.got))
		return
	case <-time.After(patience):
		assert.Fail(t, fmt.Sprintf("Do(live ctx, fn) had not called fn after %v (task 8: run fn in a goroutine)", patience))
		return
	}
	assert.False(t, do.returned(), "Do(live ctx, fn) returned while fn was still running (task 8: wait for fn's result or ctx.Done())")

	cancel(errors.New("customer left")) // a reason, which ctx.Err() does not carry
	if assert.True(t, do.wait(patience), "Do still waiting %v after its context was cancelled, with fn still running; want it to return at once "+
		"(task 8: select on ctx.Done() as well as fn's result)", patience) {
		assert.Equal(t, outcome[string]{err: context.Canceled}, do.got, "Do(ctx cancelled with a reason while fn runs) (task 8: return the zero value and ctx.Err() — "+
			"context.Cause would return the reason alone, which errors.Is(err, context.Canceled) no longer recognises)")
	}

	releaseFn() // fn finishes, long after Do has returned
	<-finishing
	assert.NoError(t, goleak.Find(before), "Do's goroutine was still running after fn returned: its result had nowhere to go "+
		"(task 8: make the result channel buffered, with room for one result, so the goroutine can always finish)")
}

// A promise that cannot be aborted can still be raced against the abort
// event, as menu v2 did with Promise.race: the caller stops waiting, the work
// goes on. Do is that race in Go, without the leak.
func ExampleDo() {
	ctx, cancel := context.WithCancel(context.Background())
	release := make(chan struct{})
	served := make(chan string, 1)

	flavour, err := Do(ctx, func() (string, error) {
		cancel() // the customer walks out while we scoop...
		select { // ...and scooping cannot be cancelled: it ends when it ends
		case <-release:
		case <-time.After(300 * time.Millisecond): // only if Do called fn and did not return
		}
		served <- "pistachio"
		return "pistachio", nil
	})
	fmt.Printf("Do: %q, %v\n", flavour, err)

	close(release)
	select { // the work was not stopped: it runs to the end, for nobody
	case f := <-served:
		fmt.Println("scooped anyway:", f)
	case <-time.After(300 * time.Millisecond): // fn finishes in microseconds, if Do ran it
		fmt.Println("fn did not finish within 300ms")
	}
	// Output:
	// Do: "", context canceled
	// scooped anyway: pistachio
}

// lateWaiter is a context that makes Do late to its own select: when Do asks
// for Done — to wait on it — lateWaiter first lets fn return, and waits
// until fn's goroutine has done what it does with the result (sent it, or
// blocked trying to), before it hands the channel over. On a busy machine
// that order happens by itself, now and then; here it happens every time.
//
// It relies only on what the Context interface documents — code that waits
// on a context calls its Done method to get the channel — not on how the
// context package works inside. The context it wraps is a real one, with a
// deadline, so that nothing waits forever.
type lateWaiter struct {
	context.Context
	started chan struct{} // closed by fn when it starts
	release chan struct{} // closed by Done: fn may return
	// busy is set while a call of Done waits for the bubble: synctest.Wait
	// must never run in two goroutines at once. A Done called meanwhile
	// returns at once.
	busy atomic.Bool
}

func (c *lateWaiter) Done() <-chan struct{} {
	if c.busy.CompareAndSwap(false, true) {
		defer c.busy.Store(false)
		if !isClosed(c.started) {
			synctest.Wait() // let Do's goroutine, if there is one yet, reach fn
		}
		if isClosed(c.started) && !isClosed(c.release) {
			close(c.release)
			synctest.Wait() // fn returns; its goroutine sends the result, or blocks trying to
		}
	}
	return c.Context.Done()
}

// isClosed reports, without waiting, whether ch is closed.
func isClosed(ch chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}
