package platform

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"
)

var (
	errClosing = errors.New("the shop is closing")
	errLeft    = errors.New("the caller left")
	errAny     = errors.New("an error") // as a wanted error: any error at all
)

// begun fails t in one line while call still returns the starter's "not
// implemented yet": a task not begun gets one message, not a screenful. It
// waits at most a second for call, and ignores a panic: later tests report it.
func begun(t *testing.T, what string, call func() error) {
	t.Helper()
	c := goCall(func() (struct{}, error) { return struct{}{}, call() })
	if c.await(time.Second); c.returned() && c.err != nil && strings.HasPrefix(c.err.Error(), "not implemented yet") {
		t.Fatalf("%s: not implemented yet (see its TODO and the README's task)", what)
	}
}

// ended is a context that has ended with errClosing.
func ended() context.Context {
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(errClosing)
	return ctx
}

// loopback listens on a loopback port until the test ends.
func loopback(t testing.TB) net.Listener {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listening on loopback: %v", err)
	}
	t.Cleanup(func() { ln.Close() })
	return ln
}

// A bgCall is a call running on a goroutine of its own, for a test to look
// at while it runs. Read got, err, took and panicked once done is closed.
type bgCall[T any] struct {
	start    time.Time
	done     chan struct{}
	got      T
	err      error
	took     time.Duration
	panicked any // what the call panicked with, if it did
}

// goCall starts f on a goroutine of its own, and records a panic in f
// for the test to report, rather than crash.
func goCall[T any](f func() (T, error)) *bgCall[T] {
	c := &bgCall[T]{start: time.Now(), done: make(chan struct{})}
	go func() {
		defer close(c.done)
		defer func() {
			c.took = time.Since(c.start)
			if c.panicked = recover(); c.panicked != nil {
				c.err = fmt.Errorf("panicked: %v", c.panicked)
			}
		}()
		c.got, c.err = f()
	}()
	return c
}

// returned reports, without waiting, whether the call has returned: call
// synctest.Wait first, for the call to run as far as it can.
func (c *bgCall[T]) returned() bool {
	select {
	case <-c.done:
		return true
	default:
		return false
	}
}

// await waits at most limit (virtual time: a long limit costs nothing) for
// the call to return.
func (c *bgCall[T]) await(limit time.Duration) {
	select {
	case <-c.done:
	case <-time.After(limit):
	}
}

// String says what the call did: "returned (map[…], <nil>) after 3s".
func (c *bgCall[T]) String() string {
	switch {
	case !c.returned():
		return fmt.Sprintf("had not returned after %v", time.Since(c.start))
	case c.panicked != nil:
		return fmt.Sprintf("panicked after %v: %v", c.took, c.panicked)
	}
	if _, none := any(c.got).(struct{}); none { // a call that returns only an error
		return fmt.Sprintf("returned %v after %v", c.err, c.took)
	}
	return fmt.Sprintf("returned (%v, %v) after %v", c.got, c.err, c.took)
}
