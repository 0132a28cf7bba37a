package abort

import (
	"context"
	"fmt"
	"testing"
	"testing/synctest"
	"time"
)

// requestIDKey is the key under which a request's context carries its ID.
type requestIDKey struct{}

func TestDetach(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// A request with an ID and a 1s deadline, detached for 3s.
		request, endRequest := context.WithTimeout(context.WithValue(context.Background(), requestIDKey{}, "req-42"), time.Second)
		defer endRequest()
		audit, cancel := Detach(request, 3*time.Second)
		if audit == nil || cancel == nil {
			t.Fatal("Detach returned a nil context or cancel; want context.WithTimeout's")
		}
		defer cancel()
		if deadline, ok := audit.Deadline(); !ok || !deadline.Equal(time.Now().Add(3*time.Second)) {
			t.Fatalf("detached Deadline() = %v, %v; want 3s from now, true (WithTimeout after WithoutCancel)", deadline, ok)
		}
		time.Sleep(time.Second) // the request's deadline passes (ExampleDetach: its cancel)
		if audit.Err() != nil || audit.Value(requestIDKey{}) != "req-42" {
			t.Fatalf("detached context after the request ended = %v, request ID %v; want live, req-42 (context.WithoutCancel keeps values, drops cancel)",
				audit.Err(), audit.Value(requestIDKey{}))
		}
		if err := returnsAt(t, "detached context", 2*time.Second, "a bound of its own", func() error { <-audit.Done(); return audit.Err() }); err != context.DeadlineExceeded {
			t.Errorf("detached context ended with %v; want %v", err, context.DeadlineExceeded)
		}

		request, _ = newCtx(t, time.Second, 0, nil)
		audit, cancel = Detach(request, 3*time.Second)
		cancel()
		if audit.Err() != context.Canceled || request.Err() != nil {
			t.Errorf("after the detached cancel: detached %v, request %v; want canceled, <nil>", audit.Err(), request.Err())
		}
	})
}

// JavaScript cannot keep a signal's data but drop its abort; context.WithoutCancel does.
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
