package abort

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"testing/synctest"
	"time"
)

// merge calls Merge, checks it returned something usable, and cancels it in t's cleanup.
func merge(t *testing.T, a, b context.Context) (context.Context, context.CancelFunc) {
	t.Helper()
	ctx, cancel := Merge(a, b)
	if ctx == nil || cancel == nil {
		t.Fatal("Merge returned a nil context or cancel; want context.WithCancelCause's")
	}
	t.Cleanup(cancel)
	return ctx, cancel
}

func TestMerge(t *testing.T) {
	errClosing := errors.New("shop closing")
	const h, s = time.Hour, time.Second
	for _, tc := range []struct {
		name               string
		deadlineA, cancelA time.Duration // the first's deadline; when it is cancelled (0: never, < 0: already)
		deadlineB, cancelB time.Duration // the second's; either ends with the reason errClosing
		at                 time.Duration // when the merged context must end
	}{
		{"first cancelled", h, s, h, 0, s},
		{"second cancelled", h, 0, h, s, s},
		{"earlier deadline", 5 * s, 0, 2 * s, 0, 2 * s},
		{"already ended", h, 0, h, -1, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				a, _ := newCtx(t, tc.deadlineA, tc.cancelA, errClosing)
				b, _ := newCtx(t, tc.deadlineB, tc.cancelB, errClosing)
				ctx, _ := merge(t, a, b)
				if got := context.Cause(ctx); tc.at == 0 && !errors.Is(got, errClosing) {
					t.Fatalf("context.Cause(merged) = %v right after merging an ended context; want %v (check b.Err() first: AfterFunc is a moment late)", got, errClosing)
				}
				cause := returnsAt(t, "the merged context", tc.at, "AfterFunc on b", func() error { <-ctx.Done(); return context.Cause(ctx) })
				if !errors.Is(cause, errClosing) {
					t.Errorf("context.Cause(merged) = %v at %v; want %v (pass context.Cause on)", cause, tc.at, errClosing)
				}
			})
		})
	}

	t.Run("values and own cancel", func(t *testing.T) {
		type flavourKey struct{}
		a, cancelA := context.WithTimeout(context.WithValue(context.Background(), flavourKey{}, "pistachio"), time.Hour)
		defer cancelA()
		b, _ := newCtx(t, time.Hour, 0, nil)
		ctx, cancel := merge(t, a, b)
		want, _ := a.Deadline()
		if got, ok := ctx.Deadline(); ctx.Value(flavourKey{}) != "pistachio" || !ok || !got.Equal(want) {
			t.Errorf("merged context's value %v, deadline %v, %v; want pistachio and the first's %v (derive it from the first)",
				ctx.Value(flavourKey{}), got, ok, want)
		}
		cancel()
		if !errors.Is(ctx.Err(), context.Canceled) || a.Err() != nil || b.Err() != nil {
			t.Errorf("after the merged cancel: merged %v, first %v, second %v; want canceled, <nil>, <nil>", ctx.Err(), a.Err(), b.Err())
		}
	})
}

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
	select { // AfterFunc ends the merged context from another goroutine
	case <-ctx.Done():
	case <-time.After(time.Second):
		fmt.Println("the merged context did not end within a second")
	}
	fmt.Println("after:", ctx.Err(), "-", context.Cause(ctx))
	fmt.Println("request still live:", request.Err() == nil)
	// Output:
	// before: <nil>
	// after: context canceled - server shutting down
	// request still live: true
}
