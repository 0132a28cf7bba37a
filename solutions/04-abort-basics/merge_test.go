package abort

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"go.uber.org/goleak"
)

func TestMerge(t *testing.T) {
	begun(t, "Merge", func() error {
		merged, cancel := Merge(context.Background(), context.Background())
		defer cancel()
		return context.Cause(merged)
	})
	errLeft, errClosing := errors.New("customer left"), errors.New("shop closing")
	type flavourKey struct{}
	const h, s = time.Hour, time.Second
	for _, tc := range []struct {
		name               string
		deadlineA, cancelA time.Duration // a's deadline and when it is cancelled (see newCtx); its reason: errLeft
		deadlineB, cancelB time.Duration // b's
		reasonB            error         // b's reason
		own                time.Duration // when the merged context's cancel is called (0: never)
		at                 time.Duration // when the merged context must end (0: when Merge returns)
		cause, err         error         // its context.Cause and its Err
	}{
		{name: "a cancelled", deadlineA: h, cancelA: s, deadlineB: h, at: s, cause: errLeft, err: context.Canceled},
		{name: "a's deadline", deadlineA: 2 * s, deadlineB: 5 * s, at: 2 * s, cause: errLeft, err: context.DeadlineExceeded},
		{name: "b cancelled", deadlineA: h, deadlineB: h, cancelB: s, reasonB: errClosing, at: s, cause: errClosing, err: context.Canceled},
		{name: "b's deadline", deadlineA: 5 * s, deadlineB: 2 * s, at: 2 * s, cause: context.DeadlineExceeded, err: context.Canceled}, // only Cause says it was a deadline
		{name: "b already ended", deadlineA: h, deadlineB: h, cancelB: -1, reasonB: errClosing, at: 0, cause: errClosing, err: context.Canceled},
		{name: "own cancel", deadlineA: h, deadlineB: h, own: s, at: s, cause: context.Canceled, err: context.Canceled},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				a, _ := newCtx(t, tc.deadlineA, tc.cancelA, errLeft)
				b, _ := newCtx(t, tc.deadlineB, tc.cancelB, tc.reasonB)
				before := goleak.IgnoreCurrent()
				start := time.Now()
				ctx, cancel := Merge(context.WithValue(opaque(a), flavourKey{}, "pistachio"), opaque(b))
				defer cancel()
				if tc.own > 0 {
					time.AfterFunc(tc.own, cancel)
				}
				got, want := "had ended when Merge returned", "had ended when Merge returned"
				if tc.at > 0 {
					want = fmt.Sprint("was live when Merge returned, ended after ", tc.at)
				}
				if ctx.Err() == nil {
					<-ctx.Done()
					got = fmt.Sprint("was live when Merge returned, ended after ", time.Since(start))
				}
				if got != want {
					t.Errorf("merged context %s; want it %s (derive it from a with WithCancelCause; AfterFunc on b cancels it; check b.Err() first)", got, want)
				}
				if got := context.Cause(ctx); !errors.Is(got, tc.cause) {
					t.Errorf("context.Cause(merged) = %v; want %v (cancel with context.Cause(b) when b ends; a's passes down by itself)", got, tc.cause)
				}
				if got := ctx.Err(); !errors.Is(got, tc.err) {
					t.Errorf("merged Err() = %v; want %v (a's Err if a ended it, else Canceled: derive from a, and let only Cause tell why)", got, tc.err)
				}
				if got := ctx.Value(flavourKey{}); got != "pistachio" {
					t.Errorf("merged Value(flavourKey) = %v; want pistachio (derive the merged context from a: it keeps a's values)", got)
				}
				if got, want := deadlineIn(ctx, start), deadlineIn(a, start); got != want {
					t.Errorf("merged Deadline() = %s; want %s, a's (derive the merged context from a: it keeps a's deadline)", got, want)
				}
				synctest.Wait()
				if goleak.Find(before) != nil {
					t.Errorf("merged context ended, but a goroutine still watches a or b; want none (keep AfterFunc's stop and call it once the merged one ends)")
				}
			})
		})
	}
}

// deadlineIn says when ctx's deadline is, from start.
func deadlineIn(ctx context.Context, start time.Time) string {
	if deadline, ok := ctx.Deadline(); ok {
		return fmt.Sprint("in ", deadline.Sub(start))
	}
	return "no deadline"
}

// opaque hides ctx's Done channel behind one of its own: the context package
// then watches it from a goroutine that lives as long as the registration.
// Value, and so context.Cause, still reach ctx.
func opaque(ctx context.Context) opaqueContext {
	done := make(chan struct{})
	context.AfterFunc(ctx, func() { close(done) })
	return opaqueContext{ctx, done}
}

type opaqueContext struct {
	context.Context
	done chan struct{}
}

func (c opaqueContext) Done() <-chan struct{} { return c.done }

// AbortSignal.any([a, b]) has no counterpart: a context has one parent.
func ExampleMerge() {
	errShutdown := errors.New("server shutting down")
	request, requestDone := context.WithCancel(context.Background())
	defer requestDone()
	server, shutdown := context.WithCancelCause(context.Background())

	ctx, cancel := Merge(request, server)
	defer cancel()
	fmt.Println("before:", ctx.Err())

	shutdown(errShutdown)
	select {
	case <-ctx.Done(): // AfterFunc ends it from another goroutine, a moment later
	case <-time.After(time.Second):
		fmt.Println("still live a second after the shutdown")
	}
	fmt.Println("after:", ctx.Err(), "-", context.Cause(ctx)) // Err cannot tell a request's end from the server's: Cause can
	fmt.Println("request still live:", request.Err() == nil)
	// Output:
	// before: <nil>
	// after: context canceled - server shutting down
	// request still live: true
}
