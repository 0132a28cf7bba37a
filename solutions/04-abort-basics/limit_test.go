package abort

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"testing"
	"testing/synctest"
	"time"
)

func TestWithinTimeout(t *testing.T) {
	errSpilled, errNoAnswer := errors.New("spilled the cone"), errors.New("no answer")
	const s, h = time.Second, time.Hour
	untilDone := func(ctx context.Context) error { <-ctx.Done(); return fmt.Errorf("%w: %w", errNoAnswer, ctx.Err()) } // ctx.Err(), wrapped
	begun(t, "WithinTimeout", func() error {
		return WithinTimeout(context.Background(), time.Second, func(context.Context) error { return nil })
	})
	for _, tc := range []struct {
		name             string
		deadline, cancel time.Duration // the parent's; when it is cancelled (0: never)
		fn               func(ctx context.Context) error
		at               time.Duration // when WithinTimeout must return
		is, not          []error
		msg, fix         string // the whole message, if it matters; the fix
	}{
		{name: "fn succeeds", deadline: h, fn: func(context.Context) error { time.Sleep(s); return nil }, at: s, fix: "return fn's error"},
		{name: "fn fails", deadline: h, fn: func(context.Context) error { return errSpilled }, is: []error{errSpilled}, msg: errSpilled.Error(), fix: "add a reason only once ctx has ended"},
		{name: "fn succeeds late", deadline: h, fn: func(context.Context) error { time.Sleep(5 * s); return nil }, at: 5 * s, fix: `fn returned nil: fmt.Errorf("%w", nil) is not nil`},
		{name: "fn fails late", deadline: h, fn: func(context.Context) error { time.Sleep(5 * s); return errSpilled }, at: 5 * s, is: []error{errSpilled, ErrTooSlow}, fix: "add context.Cause(ctx) whenever ctx has ended"},
		{name: "our timeout", deadline: h, fn: untilDone, at: 3 * s, is: []error{errNoAnswer, context.DeadlineExceeded, ErrTooSlow}, fix: "context.WithTimeoutCause; add context.Cause(ctx) to fn's error"},
		{name: "caller cancels", deadline: h, cancel: s, fn: untilDone, at: s, is: []error{errNoAnswer, context.Canceled}, not: []error{ErrTooSlow}, msg: "no answer: context canceled", fix: "derive from parent; a plain cancel's cause is ctx.Err(): add it once"},
		{name: "caller deadline", deadline: s, fn: untilDone, at: s, is: []error{errNoAnswer, context.DeadlineExceeded}, not: []error{ErrTooSlow}, fix: "label only your own timeout"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				parent, _ := newCtx(t, tc.deadline, tc.cancel, nil)
				var fnCtx context.Context
				start := time.Now()
				err := WithinTimeout(parent, 3*time.Second, func(ctx context.Context) error { fnCtx = ctx; return tc.fn(ctx) })
				if want, since := errWant(err, tc.is, tc.not, tc.msg), time.Since(start); want != "" || since != tc.at {
					t.Errorf("WithinTimeout(3s) = %v after %v; want %s after %v (%s)", err, since, cmp.Or(want, "that"), tc.at, tc.fix)
				}
				if fnCtx == nil {
					t.Errorf("WithinTimeout(3s) never called fn; want it called, with its own context")
				} else if fnCtx.Err() == nil {
					t.Errorf("WithinTimeout(3s) returned, fn's context still live; want it ended (defer cancel())")
				}
			})
		})
	}
}

// AbortSignal.timeout(ms) gives a TimeoutError, abort() an AbortError; in Go,
// DeadlineExceeded or Canceled, and a reason of your own marks your timeout.
func ExampleWithinTimeout() {
	slowStock := func(ctx context.Context) error {
		select {
		case <-time.After(time.Second): // far longer than we are willing to wait
			return nil
		case <-ctx.Done():
			return fmt.Errorf("ask stock service: %w", ctx.Err())
		}
	}
	// what matters is what errors.Is finds in err, not its text
	err := WithinTimeout(context.Background(), 10*time.Millisecond, slowStock)
	fmt.Println("timeout:", errors.Is(err, context.DeadlineExceeded), "- ours:", errors.Is(err, ErrTooSlow))

	gone, leave := context.WithCancel(context.Background())
	leave() // the customer walked out before we even asked
	err = WithinTimeout(gone, time.Hour, slowStock)
	fmt.Println("cancelled:", errors.Is(err, context.Canceled), "- ours:", errors.Is(err, ErrTooSlow))
	// Output:
	// timeout: true - ours: true
	// cancelled: true - ours: false
}
