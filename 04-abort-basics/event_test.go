package abort

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

func TestOnAbort(t *testing.T) {
	t.Run("once and remove", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			var early, late atomic.Int32
			removeEarly := OnAbort(ctx, func() { early.Add(1) })
			removeLate := OnAbort(ctx, func() { late.Add(1) })
			if removeEarly == nil || removeLate == nil {
				t.Fatal("OnAbort returned a nil remove; want AfterFunc's stop")
			}
			synctest.Wait()
			if n := late.Load(); n != 0 {
				t.Fatalf("listener called %d times before the context ended; want 0", n)
			}
			first, second := removeEarly(), removeEarly()
			cancel()
			cancel()
			synctest.Wait()
			afterRun := removeLate()
			if !first || second || afterRun || early.Load() != 0 || late.Load() != 1 {
				t.Errorf("remove() before cancel = %v, again %v, after the call = %v; calls after two cancels %d and %d; want true, false, false; 0 and 1 (return context.AfterFunc's stop)",
					first, second, afterRun, early.Load(), late.Load())
			}
		})
	})

	t.Run("already ended", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			var calls atomic.Int32
			release, returned := make(chan struct{}), make(chan struct{}, 1)
			go func() {
				OnAbort(ctx, func() { calls.Add(1); <-release }) // a listener that takes its time
				returned <- struct{}{}
			}()
			synctest.Wait()
			n, blocked := calls.Load(), len(returned) == 0
			close(release)
			if blocked || n != 1 {
				t.Errorf("OnAbort(ended ctx): blocked %v, listener called %d times; want false, 1 at once in its own goroutine", blocked, n)
			}
		})
	})
}

func TestThrowIfAborted(t *testing.T) {
	errSoldOut := errors.New("pistachio sold out")
	errClosing := errors.New("shop closing")
	ended := func(d, cancelAt time.Duration, reason error) context.Context {
		ctx, _ := newCtx(t, d, cancelAt, reason)
		return ctx
	}
	const fix = "wrap ctx.Err() and context.Cause(ctx) with two %w; a plain cancel's cause is ctx.Err() alone"
	for _, tc := range []struct {
		name    string
		ctx     context.Context
		is, not []error
		msg     string // the whole message, if it matters
	}{
		{"live", context.Background(), nil, nil, ""},
		{"plain cancel", ended(time.Hour, -1, nil), []error{context.Canceled}, nil, "context canceled"},
		{"cancel with reason", ended(time.Hour, -1, errSoldOut), []error{context.Canceled, errSoldOut}, nil, ""},
		{"deadline with reason", ended(-1, 0, errClosing), []error{context.DeadlineExceeded, errClosing}, nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checkErr(t, "ThrowIfAborted", ThrowIfAborted(tc.ctx), tc.is, tc.not, tc.msg, fix)
		})
	}
}

// signal.addEventListener('abort', fn, { once: true }) is context.AfterFunc;
// removeEventListener is the stop it returns, which says if fn had run.
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

// controller.abort(reason) is a CancelCauseFunc; signal.reason is context.Cause.
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
