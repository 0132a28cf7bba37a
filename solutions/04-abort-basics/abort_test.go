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
	errSpilled, errLeft := errors.New("spilled the cone"), errors.New("customer left")
	for _, tc := range []struct {
		name             string
		deadline, cancel time.Duration // the parent's (see newCtx); it ends with the reason errLeft
		steps, ran       string        // a step per letter: o succeeds, f fails, a aborts the parent, A aborts it and fails; the steps run, ! before one called with an ended context (its own or the previous step's)
		want             error
	}{
		{"all succeed", time.Hour, 0, "ooo", "ooo", nil}, // a parent aborted midway: ExampleBatch
		{"parent already cancelled", time.Hour, -1, "o", "", context.Canceled},
		{"parent past deadline", -1, 0, "o", "", context.DeadlineExceeded},
		{"step fails", time.Hour, 0, "fo", "f", errSpilled},
		{"aborted last", time.Hour, 0, "oa", "oa", nil},
		{"aborted and fails", time.Hour, 0, "Ao", "A", errSpilled},
	} {
		t.Run(tc.name, func(t *testing.T) {
			parent, abort := newCtx(t, tc.deadline, tc.cancel, errLeft)
			ran, last := "", context.Context(nil)
			var steps []func(context.Context) error
			for _, s := range tc.steps {
				steps = append(steps, func(ctx context.Context) error {
					if ctx.Err() != nil || last != nil && last.Err() != nil {
						ran += "!"
					}
					if last, ran = ctx, ran+string(s); s == 'a' || s == 'A' {
						abort()
					}
					return map[rune]error{'f': errSpilled, 'A': errSpilled}[s]
				})
			}
			err := Batch(parent, steps...)
			if live := last != nil && last.Err() == nil; !errors.Is(err, tc.want) || ran != tc.ran || live {
				t.Errorf("Batch(%q) = %v, ran %q, steps' context live after: %v; want %v, ran %q, false (give every step the one ctx, not parent; ask ctx.Err() before each; return the first step's error; defer cancel())", tc.steps, err, ran, live, tc.want, tc.ran)
			}
		})
	}
}

func TestSleep(t *testing.T) {
	errClosing := errors.New("shop closing")
	for _, tc := range []struct {
		name                    string
		d, deadline, cancel, at time.Duration // the sleep; ctx's deadline; when it is cancelled (see newCtx), with a reason; when Sleep must return
		want                    error
		fix                     string
	}{
		{"full duration", 3 * time.Second, time.Hour, 0, 3 * time.Second, nil, "wait for a time.Timer"}, // already cancelled: ExampleSleep
		{"cancelled midway", 10 * time.Second, time.Hour, time.Second, time.Second, context.Canceled, "select on ctx.Done() too; return ctx.Err()"},
		{"deadline first", 10 * time.Second, 2 * time.Second, 0, 2 * time.Second, context.DeadlineExceeded, "return ctx.Err()"},
		{"past deadline", time.Hour, -1, 0, 0, context.DeadlineExceeded, "return ctx.Err() itself"},
		{"zero duration", 0, time.Hour, -1, 0, context.Canceled, "check ctx.Err() first: a select picks at random"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				for range 100 { // a select picks at random among its ready cases
					ctx, _ := newCtx(t, tc.deadline, tc.cancel, errClosing)
					start := time.Now()
					if err := Sleep(ctx, tc.d); !errors.Is(err, tc.want) || time.Since(start) != tc.at {
						t.Fatalf("Sleep(ctx, %v) = %v after %v; want %v after %v (%s)", tc.d, err, time.Since(start), tc.want, tc.at, tc.fix)
					}
				}
			})
		})
	}
}

// newCtx returns a context with a deadline d from now (its cause: reason),
// cancelled with reason at cancelAt (0: never, < 0: at once) or by its cancel.
func newCtx(t *testing.T, d, cancelAt time.Duration, reason error) (context.Context, context.CancelFunc) {
	ctx, cancelDeadline := context.WithTimeoutCause(context.Background(), d, reason)
	ctx, cancel := context.WithCancelCause(ctx)
	if cancelAt < 0 {
		cancel(reason)
	} else if cancelAt > 0 {
		time.AfterFunc(cancelAt, func() { cancel(reason) })
	}
	t.Cleanup(func() { cancel(nil); cancelDeadline() })
	return ctx, func() { cancel(reason) }
}

// errWant is "" if err matches (errors.Is) every error of is and none of not,
// and msg in full if msg is not "" (a nil is wants a nil err); else the want.
func errWant(err error, is, not []error, msg string) string {
	want, ok := fmt.Sprintf("an error in which errors.Is finds %q", is), (err == nil) == (is == nil) && (msg == "" || err != nil && err.Error() == msg)
	if msg != "" {
		want = fmt.Sprintf("%q, in which errors.Is finds %q", msg, is)
	}
	for _, e := range is {
		if !errors.Is(err, e) {
			ok, want = false, want+fmt.Sprintf(" (it does not find %q)", e)
		}
	}
	for _, e := range not {
		if errors.Is(err, e) {
			ok, want = false, want+fmt.Sprintf(" and not %q (it finds it)", e)
		}
	}
	if ok {
		return ""
	} else if is == nil {
		return "<nil>"
	}
	return want
}

// await waits for done to be closed, at most 300ms: what the examples wait for
// takes microseconds, so only a wrong answer waits that long, and it says so.
func await(done <-chan struct{}, what string) {
	select {
	case <-done:
	case <-time.After(300 * time.Millisecond):
		fmt.Println(what, "did not happen within 300ms")
	}
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
