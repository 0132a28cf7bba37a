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

func TestOnAbort(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		var removed, kept, late atomic.Int32 // how often each listener was called
		before := goleak.IgnoreCurrent()
		removeEarly := OnAbort(ctx, func() { removed.Add(1) })
		first, again := removeEarly(), removeEarly()
		synctest.Wait()
		left := goleak.Find(before) != nil // AfterFunc's stop leaves no goroutine
		removeKept := OnAbort(ctx, func() { kept.Add(1) })
		synctest.Wait()
		if !first || again || left || kept.Load() != 0 {
			t.Fatalf("live ctx: remove() = %v, then %v; a goroutine left: %v; the other listener called %d times; want true, false, false, 0 (return context.AfterFunc's stop)", first, again, left, kept.Load())
		}
		cancel()
		cancel()
		synctest.Wait()
		if afterRun := removeKept(); removed.Load() != 0 || kept.Load() != 1 || afterRun {
			t.Fatalf("after two cancels: removed listener called %d times, kept one %d, its remove() %v; want 0, 1, false (AfterFunc calls f once)", removed.Load(), kept.Load(), afterRun)
		}
		start := time.Now()
		removeLate := OnAbort(ctx, func() { late.Add(1); time.Sleep(time.Hour) }) // a listener that takes its time
		took := time.Since(start)
		synctest.Wait()
		if afterStart := removeLate(); took != 0 || late.Load() != 1 || afterStart {
			t.Errorf("OnAbort(ended ctx) took %v, listener called %d times, its remove() %v; want 0s, 1, false: at once, in its own goroutine (return context.AfterFunc's stop)", took, late.Load(), afterStart)
		}
		time.Sleep(time.Hour) // the listener returns: the bubble can end
	})
}

func TestThrowIfAborted(t *testing.T) {
	errClosing := errors.New("shop closing")
	begun(t, "ThrowIfAborted", func() error { return ThrowIfAborted(context.Background()) })
	for _, tc := range []struct {
		name             string
		deadline, cancel time.Duration // see newCtx
		reason           error
		is               []error
		msg              string // the whole message, if it matters
	}{
		{name: "plain cancel", deadline: time.Hour, cancel: -1, is: []error{context.Canceled}, msg: "context canceled"}, // live, and a cancel with a reason: ExampleThrowIfAborted
		{name: "plain deadline", deadline: -1, is: []error{context.DeadlineExceeded}, msg: "context deadline exceeded"},
		{name: "deadline with reason", deadline: -1, reason: errClosing, is: []error{context.DeadlineExceeded, errClosing}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, _ := newCtx(t, tc.deadline, tc.cancel, tc.reason)
			if err := ThrowIfAborted(ctx); errWant(err, tc.is, nil, tc.msg) != "" {
				t.Errorf("ThrowIfAborted = %v; want %s (wrap ctx.Err() and context.Cause(ctx) with two %%w; a plain end's cause is ctx.Err() alone)", err, errWant(err, tc.is, nil, tc.msg))
			}
		})
	}
}

// signal.addEventListener('abort', fn, { once: true }) is context.AfterFunc;
// removeEventListener is the stop it returns, which says if fn had run.
func ExampleOnAbort() {
	ctx, abort := context.WithCancel(context.Background())

	heard := make(chan struct{})
	removeLog := OnAbort(ctx, func() { close(heard) })
	removeBell := OnAbort(ctx, func() { fmt.Println("ring the bell") })
	fmt.Println("bell removed before abort:", removeBell())

	abort()
	removed := removeLog()
	fmt.Println("log removed after abort:", removed)
	if !removed { // abort has started the listener, in a goroutine of its own
		select {
		case <-heard:
			fmt.Println("listener: the order was aborted")
		case <-time.After(time.Second):
			fmt.Println("no listener within a second")
		}
	}
	// Output:
	// bell removed before abort: true
	// log removed after abort: false
	// listener: the order was aborted
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
