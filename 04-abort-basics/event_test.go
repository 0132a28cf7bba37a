package abort

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/icecreamcorp/go-cancellation-workshop/internal/leakcheck"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestOnAbort(t *testing.T) {
	leakcheck.Check(t)

	// listen registers a listener that counts its calls.
	listen := func(t *testing.T, ctx context.Context) (calls *atomic.Int32, remove func() bool) {
		t.Helper()
		calls = new(atomic.Int32)
		remove = OnAbort(ctx, func() { calls.Add(1) })
		require.NotNil(t, remove, "OnAbort returned a nil remove function (task 3: context.AfterFunc returns one)")
		return calls, remove
	}

	t.Run("calls the listener once, in its own goroutine, when the context ends", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			calls, _ := listen(t, ctx)
			synctest.Wait()
			assert.Zero(t, calls.Load(), "listener calls before the context ended; want none (task 3)")
			cancel()
			cancel()
			synctest.Wait()
			assert.Equal(t, int32(1), calls.Load(), "listener calls after the context was cancelled (twice); want exactly one (task 3: context.AfterFunc)")
		})
	})

	t.Run("calls the listener at once when the context has already ended", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			calls, _ := listen(t, ctx)
			synctest.Wait()
			assert.Equal(t, int32(1), calls.Load(), "listener calls for a context that had already ended; want one, at once — "+
				"unlike a JavaScript 'abort' listener, which misses an event that has already fired (task 3)")
		})
	})

	t.Run("returns at once, even for a context that has already ended: the listener runs in its own goroutine", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			release := make(chan struct{})
			register := start(func() func() bool { return OnAbort(ctx, func() { <-release }) }) // a listener that takes its time
			synctest.Wait()
			returned := register.returned()
			close(release)
			synctest.Wait()
			assert.True(t, returned, "OnAbort(ended ctx, listener) had not returned while its listener was still running; "+
				"want it to return at once and leave the listener to a goroutine of its own (task 3: context.AfterFunc does both)")
		})
	})

	t.Run("remove before the context ends reports true and the listener never runs", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			calls, remove := listen(t, ctx)
			assert.True(t, remove(), "remove() before the context ended; want true: it stopped the listener (task 3)")
			assert.False(t, remove(), "a second remove(); want false: there was nothing left to stop (task 3: report whether it stopped the call)")
			cancel()
			synctest.Wait()
			assert.Zero(t, calls.Load(), "listener calls after it was removed and the context then ended; want none (task 3)")
		})
	})

	t.Run("remove after the listener has run reports false", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			calls, remove := listen(t, ctx)
			cancel()
			synctest.Wait()
			assert.False(t, remove(), "remove() after the listener had already run; want false, so the caller knows it ran "+
				"(task 3: report whether it stopped the call — AfterFunc's stop does)")
			assert.Equal(t, int32(1), calls.Load(), "listener calls after the context ended; want one (task 3)")
		})
	})
}

// This test runs in real time, outside a synctest bubble: what it looks for
// is a goroutine still waiting for a context that has not ended, and a bubble
// cannot end with one.
func TestOnAbortRemoveLeavesNoGoroutine(t *testing.T) {
	leakcheck.Check(t)
	before := goleak.IgnoreCurrent()
	ctx, cancel := context.WithCancel(context.Background()) // a context that lives long, like a server's
	defer cancel()
	remove := OnAbort(ctx, func() {})
	require.NotNil(t, remove, "OnAbort returned a nil remove function (task 3: context.AfterFunc returns one)")
	remove()
	assert.NoError(t, goleak.Find(before), "a goroutine still waiting for the context after remove(); want none: on a context that lives as long as "+
		"a server, every removed listener would hold one forever (task 3: remove must unregister the listener — context.AfterFunc's stop does)")
}

func TestThrowIfAborted(t *testing.T) {
	errSoldOut := errors.New("pistachio sold out")
	errClosing := errors.New("shop closing")

	t.Run("returns nil while the context is live", func(t *testing.T) {
		ctx, cancel := context.WithCancelCause(context.Background())
		defer cancel(nil)
		assert.NoError(t, ThrowIfAborted(ctx), "ThrowIfAborted(live ctx); want nil (task 4: ctx.Err() is nil while it is live)")
	})

	t.Run("returns context.Canceled for a plain cancel", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		err := ThrowIfAborted(ctx)
		assert.ErrorIs(t, err, context.Canceled, "ThrowIfAborted(ctx cancelled without a reason) (task 4: ctx.Err())")
		if err != nil {
			assert.Equal(t, context.Canceled.Error(), err.Error(), "ThrowIfAborted(ctx cancelled without a reason); want plain %q, not the error twice "+
				"(task 4: without a reason, context.Cause is ctx.Err() itself: return it alone)", context.Canceled.Error())
		}
	})

	t.Run("matches both context.Canceled and the reason given to cancel", func(t *testing.T) {
		ctx, cancel := context.WithCancelCause(context.Background())
		cancel(errSoldOut)
		err := ThrowIfAborted(ctx)
		assert.ErrorIs(t, err, context.Canceled, "ThrowIfAborted(ctx cancelled with a reason) (task 4: keep ctx.Err() in the error)")
		assert.ErrorIs(t, err, errSoldOut, "ThrowIfAborted(ctx cancelled with a reason) (task 4: read the reason with context.Cause — ctx.Err() never has it)")
	})

	t.Run("the first reason wins", func(t *testing.T) {
		ctx, cancel := context.WithCancelCause(context.Background())
		cancel(errSoldOut)
		cancel(errClosing)
		err := ThrowIfAborted(ctx)
		assert.ErrorIs(t, err, errSoldOut, "ThrowIfAborted after cancel(sold out) then cancel(closing) (task 4: context.Cause keeps the first reason)")
		assert.NotErrorIs(t, err, errClosing, "ThrowIfAborted after cancel(sold out) then cancel(closing) (task 4: a second cancel changes nothing)")
	})

	t.Run("a child reports the reason its parent was given", func(t *testing.T) {
		parent, cancel := context.WithCancelCause(context.Background())
		child, cancelChild := context.WithCancel(parent)
		defer cancelChild()
		cancel(errClosing)
		assert.ErrorIs(t, ThrowIfAborted(child), errClosing, "ThrowIfAborted(child of a parent cancelled with a reason) (task 4: context.Cause)")
	})

	t.Run("a deadline with a reason matches DeadlineExceeded and the reason", func(t *testing.T) {
		ctx, cancel := context.WithDeadlineCause(context.Background(), time.Now().Add(-time.Second), errClosing)
		defer cancel()
		err := ThrowIfAborted(ctx)
		assert.ErrorIs(t, err, context.DeadlineExceeded, "ThrowIfAborted(ctx past a deadline given a reason) (task 4: keep ctx.Err() in the error)")
		assert.ErrorIs(t, err, errClosing, "ThrowIfAborted(ctx past a deadline given a reason) (task 4: context.Cause)")
	})
}

// signal.addEventListener('abort', listener, { once: true }) is
// context.AfterFunc; removeEventListener is the stop function it returns,
// which also tells you whether the listener had already run.
func ExampleOnAbort() {
	ctx, abort := context.WithCancel(context.Background())

	heard := make(chan struct{})
	removeLog := OnAbort(ctx, func() { fmt.Println("listener: the order was aborted"); close(heard) })
	removeBell := OnAbort(ctx, func() { fmt.Println("ring the bell") })
	fmt.Println("bell removed before abort:", removeBell())

	abort()
	select { // the listener runs in a goroutine of its own: wait for it
	case <-heard:
	case <-time.After(300 * time.Millisecond): // it runs in microseconds; only a listener that never runs waits this long
		fmt.Println("the listener did not run within 300ms")
	}
	fmt.Println("log removed after abort:", removeLog())
	// Output:
	// bell removed before abort: true
	// listener: the order was aborted
	// log removed after abort: false
}

// controller.abort(reason) is a CancelCauseFunc called with an error;
// signal.reason is context.Cause; signal.throwIfAborted() is ThrowIfAborted.
func ExampleThrowIfAborted() {
	errSoldOut := errors.New("pistachio sold out")
	ctx, abort := context.WithCancelCause(context.Background())
	fmt.Println("before:", ThrowIfAborted(ctx))

	abort(errSoldOut)
	abort(errors.New("too late: the first reason wins"))
	err := ThrowIfAborted(ctx) // "context canceled: pistachio sold out", or the like
	fmt.Println("ctx.Err():", ctx.Err())
	fmt.Println("context.Cause:", context.Cause(ctx))
	fmt.Println("is Canceled:", errors.Is(err, context.Canceled), "- is sold out:", errors.Is(err, errSoldOut))
	// Output:
	// before: <nil>
	// ctx.Err(): context canceled
	// context.Cause: pistachio sold out
	// is Canceled: true - is sold out: true
}
