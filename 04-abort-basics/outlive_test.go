package abort

import (
	"context"
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// requestIDKey is the key under which a request's context carries its ID.
type requestIDKey struct{}

// detach calls Detach and checks that it returned something usable.
func detach(t *testing.T, ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	t.Helper()
	detached, cancel := Detach(ctx, d)
	require.NotNil(t, detached, "Detach returned a nil context (task 7: context.WithoutCancel)")
	require.NotNil(t, cancel, "Detach returned a nil cancel function (task 7: context.WithTimeout)")
	return detached, cancel
}

func TestDetach(t *testing.T) {
	newRequest := func() (context.Context, context.CancelFunc) {
		return context.WithCancel(context.WithValue(context.Background(), requestIDKey{}, "req-42"))
	}

	t.Run("stays live after the request's context is cancelled", func(t *testing.T) {
		request, cancelRequest := newRequest()
		audit, cancel := detach(t, request, time.Minute)
		defer cancel()
		cancelRequest() // the response has been sent
		assert.NoError(t, audit.Err(), "detached context after the request's context was cancelled; want it live "+
			"(task 7: context.WithoutCancel drops the parent's cancellation)")
	})

	t.Run("keeps the request's values", func(t *testing.T) {
		request, cancelRequest := newRequest()
		defer cancelRequest()
		audit, cancel := detach(t, request, time.Minute)
		defer cancel()
		assert.Equal(t, "req-42", audit.Value(requestIDKey{}), "request ID read from the detached context "+
			"(task 7: derive it from the request's context with context.WithoutCancel — context.Background() has no values)")
	})

	t.Run("ends after its own timeout, not at the request's deadline", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			request, cancelRequest := context.WithTimeout(context.Background(), time.Second)
			defer cancelRequest()
			audit, cancel := detach(t, request, 3*time.Second)
			defer cancel()
			deadline, ok := audit.Deadline()
			assert.True(t, ok && deadline.Equal(time.Now().Add(3*time.Second)), "detached context's Deadline() = %v, %v; want 3s from now, true "+
				"(task 7: WithoutCancel drops the request's deadline, WithTimeout sets your own)", deadline, ok)
			time.Sleep(3*time.Second - time.Nanosecond)
			synctest.Wait()
			assert.Error(t, request.Err(), "request's context at 3s-1ns, with a 1s deadline (a bug in the test)")
			assert.NoError(t, audit.Err(), "detached context at 3s-1ns, after the request's 1s deadline; want it live until its own 3s (task 7)")
			time.Sleep(time.Nanosecond)
			synctest.Wait()
			assert.ErrorIs(t, audit.Err(), context.DeadlineExceeded, "detached context at 3s; want it ended by its own timeout, "+
				"so a stuck audit store cannot hold it forever (task 7: context.WithTimeout)")
		})
	})

	t.Run("cancelling it leaves the request running: never the reverse", func(t *testing.T) {
		request, cancelRequest := newRequest()
		defer cancelRequest()
		audit, cancel := detach(t, request, time.Minute)
		assert.NoError(t, audit.Err(), "detached context before anything was cancelled; want it live (task 7)")
		cancel()
		assert.ErrorIs(t, audit.Err(), context.Canceled, "detached context after its own cancel (task 7)")
		assert.NoError(t, request.Err(), "request's context after the detached one was cancelled; want it live: "+
			"cancellation flows from parent to child only (task 7)")
	})
}

// A signal in JavaScript can only be aborted or not; there is no way to keep
// an abortable signal's values while dropping its abort. Go has one:
// context.WithoutCancel, for work that must finish after the request is gone.
func ExampleDetach() {
	request, responseSent := context.WithCancel(context.WithValue(context.Background(), requestIDKey{}, "req-42"))
	audit, cancel := Detach(request, 5*time.Second)
	defer cancel()

	responseSent() // the handler returned: its context is cancelled
	fmt.Println("request:", request.Err())
	fmt.Println("audit:", audit.Err(), "- for", audit.Value(requestIDKey{}))
	// Output:
	// request: context canceled
	// audit: <nil> - for req-42
}
