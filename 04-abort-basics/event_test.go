package abort

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

func TestOnAbort(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		var removed, kept, late atomic.Int32 // how often each listener was called
		n := bubbled()
		removeEarly := OnAbort(ctx, func() { removed.Add(1) })
		first, again := removeEarly(), removeEarly()
		synctest.Wait()
		left := bubbled() - n // AfterFunc's stop leaves none
		removeKept := OnAbort(ctx, func() { kept.Add(1) })
		synctest.Wait()
		if !first || again || left > 0 || kept.Load() != 0 {
			t.Fatalf("live ctx: remove() = %v, then %v, leaving %d goroutines; listener called %d times; want true, false, 0, 0 (return context.AfterFunc's stop)", first, again, left, kept.Load())
		}
		cancel()
		cancel()
		synctest.Wait()
		if afterRun := removeKept(); removed.Load() != 0 || kept.Load() != 1 || afterRun {
			t.Fatalf("after two cancels: removed listener called %d times, kept one %d, its remove() %v; want 0, 1, false", removed.Load(), kept.Load(), afterRun)
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
	for _, tc := range []struct {
		name             string
		deadline, cancel time.Duration // see newCtx
		reason           error
		is               []error
		msg              string // the whole message, if it matters
	}{
		{"plain cancel", time.Hour, -1, nil, []error{context.Canceled}, "context canceled"}, // live, and a cancel with a reason: ExampleThrowIfAborted
		{"plain deadline", -1, 0, nil, []error{context.DeadlineExceeded}, "context deadline exceeded"},
		{"deadline with reason", -1, 0, errClosing, []error{context.DeadlineExceeded, errClosing}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, _ := newCtx(t, tc.deadline, tc.cancel, tc.reason)
			if err := ThrowIfAborted(ctx); errWant(err, tc.is, nil, tc.msg) != "" {
				t.Errorf("ThrowIfAborted = %v; want %s (wrap ctx.Err() and context.Cause(ctx) with two %%w; a plain end's cause is ctx.Err() alone)", err, errWant(err, tc.is, nil, tc.msg))
			}
		})
	}
}

// bubbled counts the caller's synctest bubble's goroutines (NumGoroutine: others too, and just-ended ones).
func bubbled() int {
	buf := make([]byte, 1<<20)
	self := string(buf[:runtime.Stack(buf, false)])
	bubble := self[strings.Index(self, ", synctest bubble "):strings.Index(self, "]")] + "]"
	return strings.Count(string(buf[:runtime.Stack(buf, true)]), bubble)
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
	await(heard, "the listener") // it runs in a goroutine of its own
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
