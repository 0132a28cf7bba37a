package abort

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"testing/synctest"
	"time"
)

func TestWithinTimeout(t *testing.T) {
	errSpilled := errors.New("spilled the cone")
	untilDone := func(ctx context.Context) error { <-ctx.Done(); return ctx.Err() } // as http.Client.Do would
	for _, tc := range []struct {
		name             string
		deadline, cancel time.Duration // parent's deadline; when it is cancelled (0: never)
		fn               func(ctx context.Context) error
		at               time.Duration // when WithinTimeout must return
		is, not          []error
		msg              string // the whole message, if it matters
		fix              string
	}{
		{"fn succeeds", time.Hour, 0, func(context.Context) error { time.Sleep(time.Second); return nil },
			time.Second, nil, nil, "", "return fn's error"},
		{"fn fails", time.Hour, 0, func(context.Context) error { return errSpilled },
			0, []error{errSpilled}, []error{context.DeadlineExceeded}, errSpilled.Error(), "add a reason only once ctx has ended"},
		{"fn succeeds late", time.Hour, 0, func(context.Context) error { time.Sleep(5 * time.Second); return nil },
			5 * time.Second, nil, nil, "", `fn returned nil: fmt.Errorf("%w", nil) is not nil`},
		{"our timeout", time.Hour, 0, untilDone,
			3 * time.Second, []error{context.DeadlineExceeded, ErrTooSlow}, nil, "", "context.WithTimeoutCause; add context.Cause(ctx) to fn's error"},
		{"caller cancels", time.Hour, time.Second, untilDone,
			time.Second, []error{context.Canceled}, []error{ErrTooSlow}, "context canceled", "derive from parent; a plain cancel's cause is ctx.Err(): don't add it twice"},
		{"caller deadline", time.Second, 0, untilDone,
			time.Second, []error{context.DeadlineExceeded}, []error{ErrTooSlow}, "", "label only your own timeout"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				parent, _ := newCtx(t, tc.deadline, tc.cancel, nil)
				err := returnsAt(t, "WithinTimeout(3s)", tc.at, tc.fix, func() error { return WithinTimeout(parent, 3*time.Second, tc.fn) })
				checkErr(t, fmt.Sprintf("WithinTimeout(3s) at %v", tc.at), err, tc.is, tc.not, tc.msg, tc.fix)
			})
		})
	}

	t.Run("fn returns early", func(t *testing.T) {
		for _, result := range []error{nil, errSpilled} {
			var fnCtx context.Context
			_ = WithinTimeout(context.Background(), time.Hour, func(ctx context.Context) error { fnCtx = ctx; return result })
			if fnCtx == nil || fnCtx.Err() == nil {
				t.Fatalf("fn returned %v: its context is live (or fn never ran); want it cancelled at once (defer cancel())", result)
			}
		}
	})
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
