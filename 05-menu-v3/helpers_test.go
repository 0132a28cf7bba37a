package main

// Test helpers of this step; the menu steps' shared ones are in
// internal/menutest.

import (
	"context"
	"log/slog"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/icecreamcorp/go-cancellation-workshop/internal/menutest"
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

// assertNoMenuForCallerGone checks the answer of a menu whose caller's context
// ended before the stock service answered: an explicit status, and no menu.
// Not 200 (the recorder's default, and what net/http sends for a handler
// that writes nothing: a menu that is not there), not 502 or 504 (they blame
// the stock service, which did nothing wrong). The README picks 499.
func assertNoMenuForCallerGone(t testing.TB, menu *menutest.Pending, what, task string) {
	t.Helper()
	code := menu.Rec.Code
	switch {
	case code == http.StatusOK && menu.Rec.Body.Len() == 0:
		assert.Fail(t, "an empty 200 OK",
			"%s; the handler returned without writing, and net/http sends 200 OK for that: a caller still connected reads a success with no menu; want an explicit status: 499 Client Closed Request (%s: writeError(w, statusClientClosedRequest, err))", what, task)
	case code < 400 || code == http.StatusBadGateway || code == http.StatusGatewayTimeout:
		assert.Fail(t, "a status that says what did not happen",
			"%s; %v; want 499 Client Closed Request: the caller's context ended, no menu was served, and the stock service did nothing wrong — 200 claims a menu, 502 and 504 blame the stock service (%s)", what, menu, task)
	}
	assert.NotContains(t, menu.Rec.Body.String(), `"menu":`, "%s; %v; want no menu served (%s)", what, menu, task)
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
