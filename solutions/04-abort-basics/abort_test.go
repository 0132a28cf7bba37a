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

func TestBatch(t *testing.T) {
	leakcheck.Check(t)

	t.Run("runs every step in order with a live context and returns nil", func(t *testing.T) {
		var ran []string
		step := func(name string) func(context.Context) error {
			return func(ctx context.Context) error {
				ran = append(ran, fmt.Sprintf("%s (ctx.Err() = %v)", name, ctx.Err()))
				return nil
			}
		}
		err := Batch(context.Background(), step("weigh"), step("scoop"), step("serve"))
		assert.NoError(t, err, "Batch(3 steps that succeed) returned an error; want nil (task 1)")
		assert.Equal(t, []string{"weigh (ctx.Err() = <nil>)", "scoop (ctx.Err() = <nil>)", "serve (ctx.Err() = <nil>)"}, ran,
			"steps run by Batch; want all three, in order, with a live context (task 1: call each step with the context you derived)")
	})

	t.Run("stops before the next step once the context has ended, with the context's error", func(t *testing.T) {
		parent, abort := context.WithCancel(context.Background())
		defer abort()
		var ran []string
		err := Batch(parent,
			func(context.Context) error { ran = append(ran, "weigh"); abort(); return nil },
			func(context.Context) error { ran = append(ran, "scoop"); return nil },
		)
		assert.ErrorIs(t, err, context.Canceled, "Batch's error after the parent was cancelled during step 1 (task 1: check ctx.Err() before each step)")
		assert.Equal(t, []string{"weigh"}, ran, "steps run after the parent was cancelled during step 1; want none (task 1: check ctx.Err() before each step)")
	})

	t.Run("runs no step at all when the parent has already ended", func(t *testing.T) {
		parent, abort := context.WithCancel(context.Background())
		abort()
		var ran []string
		err := Batch(parent, func(context.Context) error { ran = append(ran, "weigh"); return nil })
		assert.ErrorIs(t, err, context.Canceled, "Batch(cancelled parent, 1 step) (task 1: check ctx.Err() before each step)")
		assert.Empty(t, ran, "steps run by Batch with a parent that had already ended; want none: nobody is waiting for them "+
			"(task 1: check ctx.Err() before each step, the first one included)")
	})

	t.Run("stops at the first failing step and returns its error", func(t *testing.T) {
		errSpilled := errors.New("spilled the cone")
		var ran []string
		err := Batch(context.Background(),
			func(context.Context) error { ran = append(ran, "weigh"); return errSpilled },
			func(context.Context) error { ran = append(ran, "scoop"); return nil },
		)
		assert.ErrorIs(t, err, errSpilled, "Batch's error when step 1 failed; want step 1's error (task 1)")
		assert.Equal(t, []string{"weigh"}, ran, "steps run after step 1 failed; want none (task 1)")
	})

	errSpilled := errors.New("spilled the cone")
	for _, tc := range []struct {
		how  string
		last error // what the only step returns
	}{
		{"after its last step succeeds", nil},
		{"after a step fails", errSpilled},
	} {
		t.Run("cancels the steps' context "+tc.how+", so work they started stops", func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				parent, cancelParent := context.WithCancel(context.Background())
				stopped := make(chan struct{})
				started := false
				err := Batch(parent, func(ctx context.Context) error {
					started = true
					go func() { // background work, tied to the step's context
						<-ctx.Done()
						close(stopped)
					}()
					return tc.last
				})
				synctest.Wait()
				assert.Equal(t, tc.last, err, "Batch(1 step that returns %s) returned %s (task 1)", describeErr(tc.last), describeErr(err))
				assert.True(t, started, "Batch never called its step (task 1)")
				if started {
					select {
					case <-stopped:
					default:
						assert.Fail(t, "a step started background work with its context and returned "+describeErr(tc.last)+
							", and the work was still running after Batch returned; want Batch to cancel the context it derived "+
							"on every path (task 1: context.WithCancel, then defer cancel() — go vet's lostcancel check flags a path that forgets it)")
					}
				}
				assert.NoError(t, parent.Err(), "the parent context was cancelled by Batch; want only the context Batch derived cancelled (task 1)")
				cancelParent() // lets the background work stop if Batch did not
				if started {
					<-stopped
				}
			})
		})
	}
}

func TestSleep(t *testing.T) {
	leakcheck.Check(t)

	t.Run("returns nil once the whole duration has passed", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			sleep := start(func() error { return Sleep(context.Background(), 3*time.Second) })
			time.Sleep(3*time.Second - time.Nanosecond)
			synctest.Wait()
			if sleep.returned() {
				assert.Fail(t, fmt.Sprintf("Sleep(ctx, 3s) had already returned at 3s-1ns, with error %v; want it still sleeping (task 2: wait for a timer)", sleep.got))
			}
			time.Sleep(time.Nanosecond)
			synctest.Wait()
			if assert.True(t, sleep.returned(), "Sleep(ctx, 3s) still sleeping after 3s; want it to return (task 2: wait for a timer)") {
				assert.NoError(t, sleep.got, "Sleep(ctx, 3s) with a live context; want nil after 3s (task 2)")
			}
			sleep.wait(time.Hour)
		})
	})

	t.Run("returns the context's error as soon as the context is cancelled", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			ctx, cancel := context.WithCancelCause(context.Background())
			defer cancel(nil)
			sleep := start(func() error { return Sleep(ctx, 10*time.Second) })
			time.Sleep(time.Second)
			synctest.Wait()
			assert.False(t, sleep.returned(), "Sleep(ctx, 10s) had already returned at 1s, with ctx still live; want it still sleeping (task 2)")
			cancel(errors.New("shop closing")) // a reason, as task 4 will give one
			synctest.Wait()
			if assert.True(t, sleep.returned(), "Sleep(ctx, 10s) still sleeping right after ctx was cancelled at 1s; want it to return at once "+
				"(task 2: select on ctx.Done() and a timer — time.Sleep cannot be interrupted)") {
				assert.ErrorIs(t, sleep.got, context.Canceled, "Sleep's error after ctx was cancelled with a reason; want ctx.Err(), which errors.Is "+
					"matches against context.Canceled (task 2: return ctx.Err() — context.Cause would return the reason alone)")
			}
			sleep.wait(time.Hour)
		})
	})

	t.Run("returns at once when the context has already ended", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			sleep := start(func() error { return Sleep(ctx, time.Hour) })
			synctest.Wait()
			if assert.True(t, sleep.returned(), "Sleep(cancelled ctx, 1h) still sleeping; want it to return at once (task 2)") {
				assert.ErrorIs(t, sleep.got, context.Canceled, "Sleep(cancelled ctx, 1h) (task 2: return ctx.Err())")
			}
			sleep.wait(2 * time.Hour)
		})
	})

	t.Run("returns the context's error, never nil, when the context has already ended, even for d <= 0", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		for _, d := range []time.Duration{0, -time.Second} {
			const calls = 200
			nils, wrong := 0, error(nil)
			for range calls {
				switch err := Sleep(ctx, d); {
				case err == nil:
					nils++
				case !errors.Is(err, context.Canceled):
					wrong = err
				}
			}
			assert.NoError(t, wrong, "Sleep(cancelled ctx, %v) returned an error that is not context.Canceled (task 2: return ctx.Err())", d)
			assert.Zero(t, nils, "Sleep(cancelled ctx, %v) returned nil %d times in %d calls; want ctx.Err() every time "+
				"(task 2: a timer of %v is ready at once, as ctx.Done() is, and select picks at random among ready cases — check ctx.Err() before starting the timer)", d, nils, calls, d)
		}
	})

	t.Run("returns the deadline error when the context's deadline comes first", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			sleep := start(func() error { return Sleep(ctx, 10*time.Second) })
			time.Sleep(2*time.Second - time.Nanosecond)
			synctest.Wait()
			assert.False(t, sleep.returned(), "Sleep(ctx with a 2s deadline, 10s) had already returned at 2s-1ns; want it still sleeping (task 2)")
			time.Sleep(time.Nanosecond)
			synctest.Wait()
			if assert.True(t, sleep.returned(), "Sleep(ctx with a 2s deadline, 10s) still sleeping at the deadline; want it to return (task 2: ctx.Done())") {
				assert.ErrorIs(t, sleep.got, context.DeadlineExceeded, "Sleep's error at ctx's deadline (task 2: return ctx.Err())")
			}
			sleep.wait(time.Hour)
		})
	})
}

// new AbortController() and controller.abort(): in Go, context.WithCancel
// returns both at once — the context (the signal you pass on) and the cancel
// function (abort). signal.aborted is ctx.Err() != nil.
func ExampleBatch() {
	ctx, abort := context.WithCancel(context.Background())
	defer abort() // always: go vet's lostcancel check reminds you

	err := Batch(ctx,
		func(ctx context.Context) error { fmt.Println("weigh the cone"); return nil },
		func(ctx context.Context) error { fmt.Println("customer walks out"); abort(); return nil },
		func(ctx context.Context) error { fmt.Println("scoop pistachio"); return nil },
	)
	fmt.Println("Batch:", err)
	fmt.Println("aborted:", ctx.Err() != nil)
	// Output:
	// weigh the cone
	// customer walks out
	// Batch: context canceled
	// aborted: true
}

// Node's timers/promises setTimeout(ms, value, { signal }) rejects with an
// AbortError when the signal aborts. Sleep returns the context's error.
func ExampleSleep() {
	fmt.Println("live:", Sleep(context.Background(), time.Millisecond))

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	fmt.Println("aborted:", Sleep(ctx, time.Second)) // returns at once
	// Output:
	// live: <nil>
	// aborted: context canceled
}

// describeErr says an error in a sentence: nil, or the error "…".
func describeErr(err error) string {
	if err == nil {
		return "nil"
	}
	return fmt.Sprintf("the error %q", err)
}
