package abort

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

func TestBatch(t *testing.T) {
	begun(t, "Batch", func() error { return Batch(context.Background()) })
	errSpilled, errLeft := errors.New("spilled the cone"), errors.New("customer left")
	for _, tc := range []struct {
		name             string
		deadline, cancel time.Duration // the parent's (see newCtx); it ends with the reason errLeft
		steps, ran       string        // a step per letter: o succeeds, f fails, a aborts the parent, A aborts it and fails; the steps run, ! before one called with an ended context (its own or the previous step's)
		want             error
	}{
		{name: "all succeed", deadline: time.Hour, steps: "ooo", ran: "ooo"}, // a parent aborted midway: ExampleBatch
		{name: "parent already cancelled", deadline: time.Hour, cancel: -1, steps: "o", want: context.Canceled},
		{name: "parent past deadline", deadline: -1, steps: "o", want: context.DeadlineExceeded},
		{name: "step fails", deadline: time.Hour, steps: "fo", ran: "f", want: errSpilled},
		{name: "aborted last", deadline: time.Hour, steps: "oa", ran: "oa"},
		{name: "aborted and fails", deadline: time.Hour, steps: "Ao", ran: "A", want: errSpilled},
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
			if !errors.Is(err, tc.want) {
				t.Errorf("Batch(%q) = %v; want %v (return ctx.Err() once it is not nil, else the first step's error)", tc.steps, err, tc.want)
			}
			if ran != tc.ran {
				t.Errorf("Batch(%q) ran %q; want %q (give every step the one ctx, not parent; ask ctx.Err() before each; stop at the first failure)", tc.steps, ran, tc.ran)
			}
			if last != nil && last.Err() == nil {
				t.Errorf("Batch(%q) returned, its steps' context still live; want it cancelled (defer cancel())", tc.steps)
			}
		})
	}
}

func TestSleep(t *testing.T) {
	begun(t, "Sleep", func() error { return Sleep(context.Background(), 0) })
	errClosing := errors.New("shop closing")
	for _, tc := range []struct {
		name                    string
		d, deadline, cancel, at time.Duration // the sleep; ctx's deadline; when it is cancelled (see newCtx), with a reason; when Sleep must return
		want                    error
		fix                     string
	}{
		{name: "full duration", d: 3 * time.Second, deadline: time.Hour, at: 3 * time.Second, fix: "wait for a time.Timer"}, // already cancelled: ExampleSleep
		{name: "cancelled midway", d: 10 * time.Second, deadline: time.Hour, cancel: time.Second, at: time.Second, want: context.Canceled, fix: "select on ctx.Done() too; return ctx.Err()"},
		{name: "deadline first", d: 10 * time.Second, deadline: 2 * time.Second, at: 2 * time.Second, want: context.DeadlineExceeded, fix: "return ctx.Err()"},
		{name: "past deadline", d: time.Hour, deadline: -1, want: context.DeadlineExceeded, fix: "return ctx.Err() itself"},
		{name: "zero duration", deadline: time.Hour, cancel: -1, want: context.Canceled, fix: "check ctx.Err() first: a select picks at random"},
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

// begun stops t with one line while call returns the starter's "not
// implemented yet": a task not begun gets one message, not one for every case.
// It waits at most a second for call, and ignores a panic: later tests report it.
func begun(t *testing.T, what string, call func() error) {
	t.Helper()
	done := make(chan error, 1)
	go func() {
		defer func() { recover() }()
		done <- call()
	}()
	select {
	case err := <-done:
		if err != nil && strings.HasPrefix(err.Error(), "not implemented yet") {
			t.Fatalf("%s: not implemented yet (see its TODO and the README's task)", what)
		}
	case <-time.After(time.Second):
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
// and reads msg if msg is not "" (a nil is wants a nil err); else what is wrong.
func errWant(err error, is, not []error, msg string) string {
	if is == nil {
		return map[bool]string{true: "", false: "<nil>"}[err == nil]
	}
	var want, missing, found []string
	if msg != "" && (err == nil || err.Error() != msg) {
		want = append(want, strconv.Quote(msg))
	} else if err == nil {
		want = append(want, "an error")
	}
	for _, e := range is {
		if !errors.Is(err, e) {
			missing = append(missing, e.Error())
		}
	}
	for _, e := range not {
		if errors.Is(err, e) {
			found = append(found, e.Error())
		}
	}
	if missing != nil {
		want = append(want, fmt.Sprintf("errors.Is finding %q", missing))
	}
	if found != nil {
		want = append(want, fmt.Sprintf("errors.Is not finding %q", found))
	}
	return strings.Join(want, ", ")
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
