package main

// Test helpers of this step; the menu steps' shared ones are in
// internal/menutest.

import (
	"context"
	"log/slog"
	"net/http"
	"strings"
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
	body := menu.Rec.Body.String()
	tooSlow := strings.Contains(body, errStockTooSlow.Error())
	switch {
	case code == http.StatusOK && menu.Rec.Body.Len() == 0:
		assert.Fail(t, "an empty 200 OK",
			"%s; the handler returned without writing, and net/http sends 200 OK for that: a caller still connected reads a success with no menu; want an explicit status: 499 Client Closed Request (%s: writeError(w, statusClientClosedRequest, err))", what, task)
	case code == http.StatusGatewayTimeout && tooSlow:
		assert.Fail(t, "a timeout that was not ours",
			"%s; %v; want 499 Client Closed Request. errors.Is(err, errStockTooSlow) caught this request before the check of r.Context(): fetchStockWithin labelled a context our caller ended as our timeout (tasks 1 and 4: wrap errStockTooSlow only when our own deadline ended the call — ctx.Err() != nil is true when the caller ended it too; context.WithTimeoutCause and context.Cause tell the two apart)", what, menu)
	case code < 400 || code == http.StatusBadGateway || code == http.StatusGatewayTimeout:
		assert.Fail(t, "a status that says what did not happen",
			"%s; %v; want 499 Client Closed Request: the caller's context ended, no menu was served, and the stock service did nothing wrong — 200 claims a menu, 502 and 504 blame the stock service (%s)", what, menu, task)
	case tooSlow:
		assert.Fail(t, "a caller who left, called a timeout",
			"%s; %v; the answer says %q, and the stock service was not too slow: our own deadline had not passed (tasks 1 and 4: fetchStockWithin wraps errStockTooSlow for every ended context — wrap it only when our own deadline ended the call: context.WithTimeoutCause gives our timeout its cause, and context.Cause(ctx) says which ending it was, so a caller who left is never called a timeout)", what, menu, errStockTooSlow.Error())
	}
	assert.NotContains(t, body, `"menu":`, "%s; %v; want no menu served (%s)", what, menu, task)
}

// logRecorder is a slog.Handler that keeps the lines it is given: each
// record's message and its attributes, as slog's text handler writes them.
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
	line := r.Message
	r.Attrs(func(a slog.Attr) bool {
		line += " " + a.String()
		return true
	})
	l.messages = append(l.messages, line)
	return nil
}

// lines returns what was logged so far.
func (l *logRecorder) lines() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.messages...)
}
