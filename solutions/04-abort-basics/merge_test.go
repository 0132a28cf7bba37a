package abort

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/icecreamcorp/go-cancellation-workshop/internal/leakcheck"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

// merge calls Merge and checks that it returned something usable.
func merge(t *testing.T, a, b context.Context) (context.Context, context.CancelFunc) {
	t.Helper()
	ctx, cancel := Merge(a, b)
	require.NotNil(t, ctx, "Merge returned a nil context (task 6: context.WithCancelCause)")
	require.NotNil(t, cancel, "Merge returned a nil cancel function (task 6)")
	return ctx, cancel
}

func TestMerge(t *testing.T) {
	leakcheck.Check(t)
	errClosing := errors.New("shop closing")

	for _, which := range []string{"first", "second"} {
		t.Run("ends when the "+which+" context is cancelled, with its reason", func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				a, cancelA := context.WithCancelCause(context.Background())
				b, cancelB := context.WithCancelCause(context.Background())
				ctx, cancel := merge(t, a, b)
				defer cancel()
				synctest.Wait()
				assert.NoError(t, ctx.Err(), "merged context before either was cancelled; want it live (task 6)")
				map[string]context.CancelCauseFunc{"first": cancelA, "second": cancelB}[which](errClosing)
				synctest.Wait()
				assert.ErrorIs(t, ctx.Err(), context.Canceled, "merged context after the %s one was cancelled (task 6: context.AfterFunc on b)", which)
				assert.ErrorIs(t, context.Cause(ctx), errClosing, "context.Cause(merged) after the %s one was cancelled with a reason (task 6: pass context.Cause on)", which)
				cancelA(nil)
				cancelB(nil)
			})
		})
	}

	t.Run("ends at the earlier deadline of the two", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			a, cancelA := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancelA()
			b, cancelB := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancelB()
			ctx, cancel := merge(t, a, b)
			defer cancel()
			time.Sleep(2*time.Second - time.Nanosecond)
			synctest.Wait()
			assert.NoError(t, ctx.Err(), "merged context at 2s-1ns, merging deadlines of 5s and 2s; want it live (task 6)")
			time.Sleep(time.Nanosecond)
			synctest.Wait()
			assert.ErrorIs(t, context.Cause(ctx), context.DeadlineExceeded, "context.Cause(merged) at 2s, merging deadlines of 5s and 2s (task 6)")
		})
	})

	t.Run("has already ended when a context it merges has", func(t *testing.T) {
		a, cancelA := context.WithCancel(context.Background())
		defer cancelA()
		b, cancelB := context.WithCancelCause(context.Background())
		cancelB(errClosing)
		ctx, cancel := merge(t, a, b)
		defer cancel()
		assert.ErrorIs(t, context.Cause(ctx), errClosing, "context.Cause(merged) right after merging an ended context; "+
			"want it ended at once, like AbortSignal.any (task 6: check b.Err() first — AfterFunc would end it a moment later, from another goroutine)")
	})

	t.Run("carries the first context's values and deadline", func(t *testing.T) {
		type flavourKey struct{}
		a, cancelA := context.WithTimeout(context.WithValue(context.Background(), flavourKey{}, "pistachio"), time.Hour)
		defer cancelA()
		b, cancelB := context.WithCancel(context.Background())
		defer cancelB()
		ctx, cancel := merge(t, a, b)
		defer cancel()
		assert.Equal(t, "pistachio", ctx.Value(flavourKey{}), "a value of the first context read from the merged one "+
			"(task 6: derive the merged context from the first context, not from context.Background())")
		wantDeadline, _ := a.Deadline()
		deadline, ok := ctx.Deadline()
		got := "no deadline"
		if ok {
			got = fmt.Sprintf("a deadline %v from now", time.Until(deadline).Round(time.Second))
		}
		assert.True(t, ok && deadline.Equal(wantDeadline), "merged context has %s; want the first context's, %v from now (task 6: derive the merged context from it)",
			got, time.Until(wantDeadline).Round(time.Second))
	})

	t.Run("its own cancel ends it, but never the contexts it merges", func(t *testing.T) {
		a, cancelA := context.WithCancel(context.Background())
		defer cancelA()
		b, cancelB := context.WithCancel(context.Background())
		defer cancelB()
		ctx, cancel := merge(t, a, b)
		assert.NoError(t, ctx.Err(), "merged context before anything was cancelled; want it live (task 6)")
		cancel()
		assert.ErrorIs(t, ctx.Err(), context.Canceled, "merged context after its own cancel (task 6)")
		assert.NoError(t, a.Err(), "first context after the merged one was cancelled; cancellation flows from parent to child only (task 6)")
		assert.NoError(t, b.Err(), "second context after the merged one was cancelled; cancellation flows from parent to child only (task 6)")
	})
}

// These tests run in real time, outside a synctest bubble: what they look
// for is a goroutine that never ends, and a bubble cannot end with one.
//
// To watch a context it does not know (no context of its own inside, no
// AfterFunc method), the context package needs a goroutine that waits on
// its Done channel — for context.AfterFunc(b, …) as for WithCancel(a). That
// goroutine lives as long as the registration: a registration Merge forgets
// to release shows as a goroutine left behind.
func TestMergeLeavesNoGoroutine(t *testing.T) {
	leakcheck.Check(t)

	for _, end := range []string{"its own cancel", "the first context", "the second context"} {
		t.Run("releases what it registered on both contexts when ended by "+end, func(t *testing.T) {
			before := goleak.IgnoreCurrent()
			a, b := opaqueContext{make(chan struct{})}, opaqueContext{make(chan struct{})}
			endA, endB := sync.OnceFunc(func() { close(a.done) }), sync.OnceFunc(func() { close(b.done) })
			defer endA()
			defer endB()
			ctx, cancel := merge(t, a, b)
			defer cancel()
			assert.NoError(t, ctx.Err(), "merged context before anything ended; want it live (task 6)")
			map[string]func(){"its own cancel": cancel, "the first context": endA, "the second context": endB}[end]()
			select {
			case <-ctx.Done():
			case <-time.After(2 * time.Second):
				assert.Fail(t, fmt.Sprintf("merged context still live 2s after %s ended it (task 6)", end))
			}
			// Looked at before the deferred cancel: the merged context's
			// ending, for any reason, releases the registrations.
			assert.NoError(t, goleak.Find(before), "goroutines still watching the merged contexts after %s ended the merge; want none "+
				"(task 6: release the AfterFunc registration on the other context when the merged context ends, however it ends — "+
				"call the stop function AfterFunc returned; AfterFunc on the merged context can do it)", end)
		})
	}
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
