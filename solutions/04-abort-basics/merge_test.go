package abort

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"testing/synctest"
	"time"
)

func TestMerge(t *testing.T) {
	errClosing := errors.New("shop closing")
	type flavourKey struct{}
	const h, s = time.Hour, time.Second
	for _, tc := range []struct {
		name               string
		deadlineA, cancelA time.Duration // the first's deadline; when it is cancelled (see newCtx)
		deadlineB, cancelB time.Duration // the second's; either ends with the reason errClosing
		own, at            time.Duration // when the merged context's cancel is called (0: never); when it must end
		want               error         // its cause
	}{
		{"first cancelled", h, s, h, 0, 0, s, errClosing},
		{"earlier deadline", 5 * s, 0, 2 * s, 0, 0, 2 * s, errClosing}, // the second cancelled: ExampleMerge
		{"already ended", h, 0, h, -1, 0, 0, errClosing},
		{"own cancel", h, 0, h, 0, s, s, context.Canceled},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				a, _ := newCtx(t, tc.deadlineA, tc.cancelA, errClosing)
				b, _ := newCtx(t, tc.deadlineB, tc.cancelB, errClosing)
				n := bubbled()
				ctx, cancel := Merge(context.WithValue(opaque(a), flavourKey{}, "pistachio"), opaque(b))
				defer cancel()
				if tc.own > 0 {
					time.AfterFunc(tc.own, cancel)
				}
				atOnce, start := ctx.Err() != nil, time.Now()
				<-ctx.Done()
				since := time.Since(start)
				deadline, _ := ctx.Deadline() // a's: start + deadlineA
				synctest.Wait()
				if got, left := context.Cause(ctx), bubbled()-n; !errors.Is(got, tc.want) || since != tc.at || atOnce != (tc.at == 0) || ctx.Value(flavourKey{}) != "pistachio" || deadline.Sub(start) != tc.deadlineA || left > 0 {
					t.Errorf("merged context ended after %v (when Merge returned: %v) with cause %v, value %v, deadline in %v, %d goroutines left on a or b; want after %v (%v), %v, pistachio, %v, 0 (derive from the first; check b.Err(), then AfterFunc on b passing context.Cause on, and its stop once the merged one ends)", since, atOnce, got, ctx.Value(flavourKey{}), deadline.Sub(start), left, tc.at, tc.at == 0, tc.want, tc.deadlineA)
				}
			})
		})
	}
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
	await(ctx.Done(), "the merged context's end") // AfterFunc ends it from another goroutine
	fmt.Println("after:", ctx.Err(), "-", context.Cause(ctx))
	fmt.Println("request still live:", request.Err() == nil)
	// Output:
	// before: <nil>
	// after: context canceled - server shutting down
	// request still live: true
}
