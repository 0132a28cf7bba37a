package main

// Test helpers of this step; the menu steps' shared ones are in
// internal/menutest.

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"time"
)

// holdUntilLeft holds every request until its caller leaves — then it sends
// the time on left, once — or until release is closed; then h answers it.
func holdUntilLeft(release <-chan struct{}, left chan<- time.Time, h http.Handler) http.Handler {
	var once sync.Once
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
			once.Do(func() { left <- time.Now() })
		}
		h.ServeHTTP(w, r)
	})
}

// wroteNothing reports whether a handler wrote nothing at all to rec: no
// status, no header, no body.
func wroteNothing(rec *httptest.ResponseRecorder) bool {
	return rec.Code == http.StatusOK && len(rec.Header()) == 0 && rec.Body.Len() == 0 && !rec.Flushed
}

// watchedCtx is a context for the menu's request that knows how many
// contexts derived from it are still linked to it. context.WithTimeout and
// its kin link a child to a parent like this one through its AfterFunc
// method, and unlink it when the child is cancelled — by its cancel
// function, its deadline, or the parent ending.
type watchedCtx struct {
	context.Context
	done chan struct{} // a channel of its own, so that the children use AfterFunc

	mu   sync.Mutex
	live int
}

// watch returns a context that ends with parent, and watches its children.
func watch(parent context.Context) *watchedCtx {
	c := &watchedCtx{Context: parent, done: make(chan struct{})}
	context.AfterFunc(parent, func() { close(c.done) })
	return c
}

func (c *watchedCtx) Done() <-chan struct{} { return c.done }

func (c *watchedCtx) AfterFunc(f func()) (stop func() bool) {
	c.add(1)
	var once sync.Once
	unlink := func() { once.Do(func() { c.add(-1) }) }
	stopParent := context.AfterFunc(c.Context, func() { unlink(); f() })
	return func() bool { unlink(); return stopParent() }
}

func (c *watchedCtx) add(n int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.live += n
}

// linked is how many derived contexts are still linked to c.
func (c *watchedCtx) linked() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.live
}

// logRecorder is a slog.Handler that keeps the messages it is given.
type logRecorder struct {
	mu       sync.Mutex
	messages []string
}

func (l *logRecorder) Enabled(context.Context, slog.Level) bool { return true }
func (l *logRecorder) WithAttrs([]slog.Attr) slog.Handler       { return l }
func (l *logRecorder) WithGroup(string) slog.Handler            { return l }

func (l *logRecorder) Handle(_ context.Context, r slog.Record) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.messages = append(l.messages, r.Message)
	return nil
}

// lines returns what was logged so far.
func (l *logRecorder) lines() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.messages...)
}
