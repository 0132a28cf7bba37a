package abort

import (
	"context"
	"fmt"
	"testing"
	"testing/synctest"
	"time"
)

func TestDetach(t *testing.T) {
	type requestIDKey struct{} // the key of a request's ID

	for _, deadline := range []time.Duration{time.Second, 5 * time.Second} { // the request's; it ends at 1s either way
		synctest.Test(t, func(t *testing.T) {
			request, _ := newCtx(t, deadline, time.Second, nil)
			audit, cancel := Detach(context.WithValue(request, requestIDKey{}, "req-42"), 3*time.Second)
			defer cancel()
			time.Sleep(3*time.Second - time.Nanosecond)
			synctest.Wait()
			if audit.Err() != nil || audit.Value(requestIDKey{}) != "req-42" {
				t.Fatalf("detached context at 3s-1ns (the request ended at 1s, its deadline %v) = %v, request ID %v; want live, req-42 (context.WithoutCancel keeps values, drops cancel)", deadline, audit.Err(), audit.Value(requestIDKey{}))
			}
			time.Sleep(time.Nanosecond)
			synctest.Wait()
			if audit.Err() != context.DeadlineExceeded {
				t.Fatalf("detached context at 3s (the request's deadline %v) = %v; want %v (a bound of its own, d from now: WithTimeout)", deadline, audit.Err(), context.DeadlineExceeded)
			}
		})
	}
}

// JavaScript cannot keep a signal's data but drop its abort; context.WithoutCancel does.
func ExampleDetach() {
	type requestIDKey struct{} // the key under which a request's context carries its ID
	request, responseSent := context.WithCancel(context.WithValue(context.Background(), requestIDKey{}, "req-42"))
	audit, cancel := Detach(request, 5*time.Second)

	responseSent() // the handler returned: its context is cancelled
	fmt.Println("request:", request.Err())
	fmt.Println("audit:", audit.Err(), "- for", audit.Value(requestIDKey{}))
	cancel() // the audit line is written
	fmt.Println("audit after its cancel:", audit.Err())
	// Output:
	// request: context canceled
	// audit: <nil> - for req-42
	// audit after its cancel: context canceled
}
