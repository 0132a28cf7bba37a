package abort

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"github.com/icecreamcorp/go-cancellation-workshop/internal/leakcheck"
	"github.com/stretchr/testify/assert"
)

// untilDone is work that honours its context: it returns ctx.Err() when the
// context ends, as http.Client.Do would.
func untilDone(ctx context.Context) error {
	<-ctx.Done()
	return ctx.Err()
}

func TestWithinTimeout(t *testing.T) {
	leakcheck.Check(t)
	errSpilled := errors.New("spilled the cone")

	t.Run("returns fn's result when fn finishes in time", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			err := WithinTimeout(context.Background(), 3*time.Second, func(ctx context.Context) error {
				time.Sleep(time.Second)
				return nil
			})
			assert.NoError(t, err, "WithinTimeout(3s, fn that succeeds after 1s) (task 5: return fn's error)")
			err = WithinTimeout(context.Background(), 3*time.Second, func(ctx context.Context) error { return errSpilled })
			assert.ErrorIs(t, err, errSpilled, "WithinTimeout(3s, fn that fails at once) (task 5: return fn's error)")
			assert.NotErrorIs(t, err, context.DeadlineExceeded, "WithinTimeout(3s, fn that fails at once) (task 5: fn failed on its own, in time)")
			if err != nil {
				assert.Equal(t, errSpilled.Error(), err.Error(), "WithinTimeout(3s, fn that fails at once with %q); want fn's error as it is "+
					"(task 5: add the reason only once the context has ended — while it is live, context.Cause is nil)", errSpilled)
			}
		})
	})

	t.Run("returns nil when fn succeeds, even after its context has ended", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			err := WithinTimeout(context.Background(), time.Second, func(ctx context.Context) error {
				time.Sleep(3 * time.Second) // work that does not look at its context, and finishes
				return nil
			})
			assert.NoError(t, err, "WithinTimeout(1s, fn that ignores its context and succeeds after 3s); want nil, fn's result "+
				"(task 5: add the cause only to an error fn returned — fmt.Errorf(\"%w\", nil) is not nil)")
		})
	})

	t.Run("ends fn's context after exactly d, with ErrTooSlow as the reason", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			parent, cancel := context.WithCancel(context.Background())
			defer cancel()
			call := start(func() error { return WithinTimeout(parent, 3*time.Second, untilDone) })
			time.Sleep(3*time.Second - time.Nanosecond)
			synctest.Wait()
			if call.returned() {
				assert.Fail(t, fmt.Sprintf("WithinTimeout(3s, fn) had already returned at 3s-1ns, with error %v; want fn's context still live (task 5: context.WithTimeoutCause)", call.got))
			}
			time.Sleep(time.Nanosecond)
			synctest.Wait()
			if assert.True(t, call.returned(), "WithinTimeout(3s, fn) still waiting at 3s; want fn's context ended (task 5: context.WithTimeoutCause)") {
				assert.ErrorIs(t, call.got, context.DeadlineExceeded, "WithinTimeout's error at its own timeout; want it to match context.DeadlineExceeded, as fn's error does (task 5: return fn's error, with the cause added to it — not the cause alone)")
				assert.ErrorIs(t, call.got, ErrTooSlow, "WithinTimeout's error at its own timeout (task 5: give the timeout the reason ErrTooSlow "+
					"with context.WithTimeoutCause, and read it with context.Cause — ctx.Err() never has it)")
			}
			cancel()
			call.wait(time.Hour)
		})
	})

	t.Run("a caller who cancels is not a timeout", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			parent, cancel := context.WithCancel(context.Background())
			defer cancel()
			call := start(func() error { return WithinTimeout(parent, 3*time.Second, untilDone) })
			time.Sleep(time.Second)
			cancel()
			synctest.Wait()
			if assert.True(t, call.returned(), "WithinTimeout(3s, fn) still waiting after its parent was cancelled at 1s (task 5: derive fn's context from parent)") {
				assert.ErrorIs(t, call.got, context.Canceled, "WithinTimeout's error after its parent was cancelled (task 5)")
				assert.NotErrorIs(t, call.got, ErrTooSlow, "WithinTimeout's error after its parent was cancelled; the caller left, we did not time out (task 5)")
				if call.got != nil {
					assert.Equal(t, "context canceled", call.got.Error(), "WithinTimeout's error after its parent was cancelled without a reason, fn returning ctx.Err(); "+
						"want plain \"context canceled\", not the error twice (task 5: the cause of a plain cancel is ctx.Err() itself — when errors.Is(err, cause), return err alone, as in task 4)")
				}
			}
			call.wait(time.Hour)
		})
	})

	t.Run("the caller's earlier deadline is not our timeout", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			parent, cancel := context.WithTimeout(context.Background(), time.Second)
			defer cancel()
			call := start(func() error { return WithinTimeout(parent, 3*time.Second, untilDone) })
			time.Sleep(time.Second)
			synctest.Wait()
			if assert.True(t, call.returned(), "WithinTimeout(3s, fn) still waiting at its parent's 1s deadline (task 5: derive fn's context from parent)") {
				assert.ErrorIs(t, call.got, context.DeadlineExceeded, "WithinTimeout's error at its parent's deadline (task 5)")
				assert.NotErrorIs(t, call.got, ErrTooSlow, "WithinTimeout's error at its parent's deadline: that was the caller's deadline, not ours "+
					"(task 5: label only your own timeout, with context.WithTimeoutCause; DeadlineExceeded alone cannot tell them apart)")
			}
			call.wait(time.Hour)
		})
	})

	for _, tc := range []struct {
		how string
		err error // what fn returns
	}{
		{"succeeds", nil},
		{"fails", errSpilled},
	} {
		t.Run("cancels fn's context when fn "+tc.how+" early", func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var fnCtx context.Context
				_ = WithinTimeout(context.Background(), time.Hour, func(ctx context.Context) error { fnCtx = ctx; return tc.err })
				if assert.NotNil(t, fnCtx, "WithinTimeout never called fn (task 5)") {
					assert.ErrorIs(t, fnCtx.Err(), context.Canceled, "fn's context after fn %s and WithinTimeout returned; want it cancelled at once, "+
						"not an hour later (task 5: always call cancel, on every path — defer it; it also stops the timer)", tc.how)
				}
			})
		})
	}
}

// AbortSignal.timeout(ms) aborts with a TimeoutError; a user's abort() gives
// an AbortError. In Go both show in ctx.Err() — DeadlineExceeded or Canceled,
// tested with errors.Is — and a reason of your own tells your timeout apart.
func ExampleWithinTimeout() {
	slowStock := func(ctx context.Context) error {
		select {
		case <-time.After(time.Second): // far longer than we are willing to wait
			return nil
		case <-ctx.Done():
			return fmt.Errorf("ask stock service: %w", ctx.Err())
		}
	}
	// err reads "ask stock service: context deadline exceeded: took too
	// long", or the like: what matters is what errors.Is finds in it.
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
