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
	for _, tc := range []struct {
		name             string
		deadline, cancel time.Duration // the parent's; when it is cancelled (0: never)
		fn               func(ctx context.Context) error
		at               time.Duration // when WithinTimeout must return
		is, not          []error
		msg, fix         string // the whole message, if it matters; the fix
	}{
		{"fn succeeds", h, 0, func(context.Context) error { time.Sleep(s); return nil }, s, nil, nil, "", "return fn's error"},
		{"fn fails", h, 0, func(context.Context) error { return errSpilled }, 0, []error{errSpilled}, nil, errSpilled.Error(), "add a reason only once ctx has ended"},
		{"fn succeeds late", h, 0, func(context.Context) error { time.Sleep(5 * s); return nil }, 5 * s, nil, nil, "", `fn returned nil: fmt.Errorf("%w", nil) is not nil`},
		{"fn fails late", h, 0, func(context.Context) error { time.Sleep(5 * s); return errSpilled }, 5 * s, []error{errSpilled, ErrTooSlow}, nil, "", "add context.Cause(ctx) whenever ctx has ended"},
		{"our timeout", h, 0, untilDone, 3 * s, []error{errNoAnswer, context.DeadlineExceeded, ErrTooSlow}, nil, "", "context.WithTimeoutCause; add context.Cause(ctx) to fn's error"},
		{"caller cancels", h, s, untilDone, s, []error{errNoAnswer, context.Canceled}, []error{ErrTooSlow}, "no answer: context canceled", "derive from parent; a plain cancel's cause is ctx.Err(): don't add it twice"},
		{"caller deadline", s, 0, untilDone, s, []error{errNoAnswer, context.DeadlineExceeded}, []error{ErrTooSlow}, "", "label only your own timeout"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				parent, _ := newCtx(t, tc.deadline, tc.cancel, nil)
				var fnCtx context.Context
				start := time.Now()
				err := WithinTimeout(parent, 3*time.Second, func(ctx context.Context) error { fnCtx = ctx; return tc.fn(ctx) })
				want, since, live := errWant(err, tc.is, tc.not, tc.msg), time.Since(start), fnCtx == nil || fnCtx.Err() == nil
				if want != "" || since != tc.at || live {
					t.Errorf("WithinTimeout(3s) = %v after %v, %s; want %s after %v, fn's context ended (%s; defer cancel())", err, since, map[bool]string{true: "fn never called", false: map[bool]string{true: "fn's context still live", false: "fn's context ended"}[live]}[fnCtx == nil], cmp.Or(want, "that"), tc.at, tc.fix)
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
