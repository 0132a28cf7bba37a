package abort

import (
	"context"
	"fmt"
	"sync"
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

// spyContext wraps a context and counts the registrations made on it that
// are still live. When a context has an AfterFunc method, the context
// package calls it to watch that context — for context.AfterFunc, and for
// children made with WithCancel and friends — which is what lets the spy
// count them.
type spyContext struct {
	inner context.Context
	mu    sync.Mutex
	live  int
}

func (s *spyContext) Deadline() (time.Time, bool) { return s.inner.Deadline() }
func (s *spyContext) Done() <-chan struct{}       { return s.inner.Done() }
func (s *spyContext) Err() error                  { return s.inner.Err() }

// Value carries no values on purpose: passing keys on to inner would also
// pass on the context package's private key, and the package would then
// register with inner directly, behind the spy's back.
func (s *spyContext) Value(any) any { return nil }

// AfterFunc registers f to run when the context ends. The registration
// stays live until f runs or stop removes it.
func (s *spyContext) AfterFunc(f func()) (stop func() bool) {
	s.mu.Lock()
	s.live++
	s.mu.Unlock()
	release := sync.OnceFunc(func() {
		s.mu.Lock()
		s.live--
		s.mu.Unlock()
	})
	stopInner := context.AfterFunc(s.inner, func() {
		release()
		f()
	})
	return func() bool {
		stopped := stopInner()
		if stopped {
			release()
		}
		return stopped
	}
}

// registrations is how many registrations on the context are still live.
func (s *spyContext) registrations() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.live
}

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
