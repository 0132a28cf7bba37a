package abort

import (
	"context"
	"fmt"
	"time"
)

// call is a function running in a goroutine of its own, so that a test can
// ask whether it has returned yet without blocking on it.
type call[T any] struct {
	done chan struct{}
	got  T // what the function returned; read it only once done is closed
}

// start runs f in a new goroutine.
func start[T any](f func() T) *call[T] {
	c := &call[T]{done: make(chan struct{})}
	go func() {
		defer close(c.done)
		c.got = f()
	}()
	return c
}

// returned reports, without waiting, whether the call has returned. Inside a
// synctest bubble, call synctest.Wait first so that the call has run as far
// as it can.
func (c *call[T]) returned() bool {
	select {
	case <-c.done:
		return true
	default:
		return false
	}
}

// wait waits at most limit for the call to return, and reports whether it
// did. Inside a synctest bubble the limit is virtual time, so a long limit
// costs nothing.
func (c *call[T]) wait(limit time.Duration) bool {
	timer := time.NewTimer(limit)
	defer timer.Stop()
	select {
	case <-c.done:
		return true
	case <-timer.C:
		return false
	}
}

// outcome is what a function returning (T, error) returned.
type outcome[T any] struct {
	value T
	err   error
}

func (o outcome[T]) String() string { return fmt.Sprintf("(%#v, %v)", o.value, o.err) }

// opaqueContext is a context the context package knows nothing about: no
// AfterFunc method, no context of its own inside. To watch one, the package
// has to start a goroutine that waits on its Done channel.
type opaqueContext struct{ done chan struct{} }

func (opaqueContext) Deadline() (time.Time, bool) { return time.Time{}, false }
func (c opaqueContext) Done() <-chan struct{}     { return c.done }
func (opaqueContext) Value(any) any               { return nil }
func (c opaqueContext) Err() error {
	select {
	case <-c.done:
		return context.Canceled
	default:
		return nil
	}
}
