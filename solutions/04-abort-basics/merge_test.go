package abort

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"testing/synctest"
	"time"
)

// merge calls Merge and checks that it returned something usable.
func merge(t *testing.T, a, b context.Context) (context.Context, context.CancelFunc) {
	t.Helper()
	ctx, cancel := Merge(a, b)
	if ctx == nil || cancel == nil {
		t.Fatal("Merge returned a nil context or cancel; want context.WithCancelCause's")
	}
	return ctx, cancel
}

func TestMerge(t *testing.T) {
	errClosing := errors.New("shop closing")

	t.Run("either cancelled", func(t *testing.T) {
		for _, which := range []string{"first", "second"} {
			synctest.Test(t, func(t *testing.T) {
				a, cancelA := context.WithCancelCause(context.Background())
				defer cancelA(nil)
				b, cancelB := context.WithCancelCause(context.Background())
				defer cancelB(nil)
				ctx, cancel := merge(t, a, b)
				defer cancel()
				synctest.Wait()
				if ctx.Err() != nil {
					t.Fatalf("merged context = %v before either ended; want live", ctx.Err())
				}
				map[string]context.CancelCauseFunc{"first": cancelA, "second": cancelB}[which](errClosing)
				synctest.Wait()
				if got := context.Cause(ctx); !errors.Is(got, errClosing) {
					t.Errorf("context.Cause(merged) = %v after the %s was cancelled; want %v (AfterFunc on b; pass context.Cause on)", got, which, errClosing)
				}
			})
		}
	})

	t.Run("earlier deadline", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			a, cancelA := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancelA()
			b, cancelB := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancelB()
			ctx, cancel := merge(t, a, b)
			defer cancel()
			what := "merged context, deadlines 5s and 2s,"
			cause := returnsAt(t, what, 2*time.Second, "AfterFunc on b", func() error { <-ctx.Done(); return context.Cause(ctx) })
			if !errors.Is(cause, context.DeadlineExceeded) {
				t.Errorf("%s ended with %v; want %v", what, cause, context.DeadlineExceeded)
			}
		})
	})

	t.Run("already ended", func(t *testing.T) {
		a, cancelA := context.WithCancel(context.Background())
		defer cancelA()
		b, cancelB := context.WithCancelCause(context.Background())
		cancelB(errClosing)
		ctx, cancel := merge(t, a, b)
		defer cancel()
		if got := context.Cause(ctx); !errors.Is(got, errClosing) {
			t.Errorf("context.Cause(merged) = %v right after merging an ended context; want %v (check b.Err() first: AfterFunc is a moment late)", got, errClosing)
		}
	})

	t.Run("values and own cancel", func(t *testing.T) {
		type flavourKey struct{}
		a, cancelA := context.WithTimeout(context.WithValue(context.Background(), flavourKey{}, "pistachio"), time.Hour)
		defer cancelA()
		b, cancelB := context.WithCancel(context.Background())
		defer cancelB()
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

// AbortSignal.any([a, b]) has no counterpart in the context package: a child
// has one parent. Merge builds it from WithCancelCause and AfterFunc.
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
