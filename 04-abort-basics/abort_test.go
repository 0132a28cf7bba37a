package abort

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"testing/synctest"
	"time"
)

func TestBatch(t *testing.T) {
	errSpilled := errors.New("spilled the cone")
	for _, tc := range []struct {
		name             string
		deadline, cancel time.Duration // the parent's; cancel < 0: cancelled already
		steps            string        // a step per letter: o succeeds, f fails, a aborts the parent
		ran              string        // the steps run; ! marks one called with an ended context
		want             error
	}{
		{"all succeed", time.Hour, 0, "ooo", "ooo", nil},
		{"parent aborted", time.Hour, 0, "aoo", "a", context.Canceled},
		{"parent already cancelled", time.Hour, -1, "o", "", context.Canceled},
		{"parent past deadline", -1, 0, "o", "", context.DeadlineExceeded},
		{"step fails", time.Hour, 0, "fo", "f", errSpilled},
	} {
		t.Run(tc.name, func(t *testing.T) {
			parent, abort := newCtx(t, tc.deadline, tc.cancel, nil)
			ran, last := "", context.Context(nil)
			var steps []func(context.Context) error
			for _, s := range tc.steps {
				steps = append(steps, func(ctx context.Context) error {
					last = ctx
					if ctx.Err() != nil {
						ran += "!"
					}
					ran += string(s)
					switch s {
					case 'a':
						abort()
					case 'f':
						return errSpilled
					}
					return nil
				})
			}
			err := Batch(parent, steps...)
			if !errors.Is(err, tc.want) || ran != tc.ran {
				t.Fatalf("Batch(%q) = %v, ran %q; want %v, ran %q (ask ctx.Err() before each step; stop at the first error)", tc.steps, err, ran, tc.want, tc.ran)
			}
			if last != nil && last.Err() == nil {
				t.Errorf("the steps' context is live after Batch returned; want it cancelled (context.WithCancel, then defer cancel())")
			}
		})
	}
}

func TestSleep(t *testing.T) {
	errClosing := errors.New("shop closing")
	for _, tc := range []struct {
		name                string
		d, deadline, cancel time.Duration // ctx's deadline; when it is cancelled, with a reason (0: never)
		at                  time.Duration // when Sleep must return
		want                error
		fix                 string
	}{
		{"full duration", 3 * time.Second, time.Hour, 0, 3 * time.Second, nil, "wait for a time.Timer"},
		{"cancelled midway", 10 * time.Second, time.Hour, time.Second, time.Second, context.Canceled, "select on ctx.Done() too; return ctx.Err()"},
		{"deadline first", 10 * time.Second, 2 * time.Second, 0, 2 * time.Second, context.DeadlineExceeded, "return ctx.Err()"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ctx, _ := newCtx(t, tc.deadline, tc.cancel, errClosing)
				what := fmt.Sprintf("Sleep(ctx, %v)", tc.d)
				if err := returnsAt(t, what, tc.at, tc.fix, func() error { return Sleep(ctx, tc.d) }); !errors.Is(err, tc.want) {
					t.Fatalf("%s = %v at %v; want %v (%s)", what, err, tc.at, tc.want, tc.fix)
				}
			})
		})
	}

	t.Run("already cancelled", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			ctx, _ := newCtx(t, time.Hour, -1, errClosing)
			for _, d := range []time.Duration{time.Hour, 0, -time.Second} {
				for range 100 { // a select picks at random among ready cases
					start := time.Now()
					if err := Sleep(ctx, d); !errors.Is(err, context.Canceled) || time.Since(start) != 0 {
						t.Fatalf("Sleep(cancelled ctx, %v) = %v after %v; want context canceled at once (check ctx.Err() first)", d, err, time.Since(start))
					}
				}
			}
		})
	})
}

// new AbortController() and controller.abort() are one call, context.WithCancel;
// signal.aborted is ctx.Err() != nil.
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

// Node's setTimeout(ms, value, { signal }) rejects with an AbortError; Sleep returns ctx.Err().
func ExampleSleep() {
	fmt.Println("live:", Sleep(context.Background(), time.Millisecond))

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	fmt.Println("aborted:", Sleep(ctx, time.Second)) // returns at once
	// Output:
	// live: <nil>
	// aborted: context canceled
}
