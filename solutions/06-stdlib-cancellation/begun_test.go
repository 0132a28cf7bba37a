package platform

import (
	"context"
	"strings"
	"testing"
	"time"
)

// begun fails t in one line while call still returns the starter's
// errNotImplemented ("not implemented yet: …"): a task not begun gets one message, not a screenful. It
// waits at most a second for call, and ignores a panic: the tests that follow
// report those.
func begun(t *testing.T, what string, call func() error) {
	t.Helper()
	done := make(chan error, 1)
	go func() {
		defer func() {
			if recover() != nil {
				done <- nil
			}
		}()
		done <- call()
	}()
	select {
	case err := <-done:
		if err != nil && strings.HasPrefix(err.Error(), "not implemented yet") {
			t.Fatalf("%s: not implemented yet (see its TODO and the README's task)", what)
		}
	case <-time.After(time.Second):
	}
}

// ended is a context that has ended.
func ended() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx
}
