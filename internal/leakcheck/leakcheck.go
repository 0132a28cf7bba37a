// Package leakcheck proves that a test leaves no goroutine behind.
//
// Call Check first thing in a test that starts goroutines, servers or
// clients:
//
//	func TestSomething(t *testing.T) {
//		leakcheck.Check(t)
//		srv := httptest.NewServer(h) // its Close is registered after the check...
//		t.Cleanup(srv.Close)         // ...so it runs before it: cleanups run last-in, first-out.
//	}
//
// The check runs as the test's last cleanup, after every other cleanup has
// closed what it opened, and fails the test with the stack of each goroutine
// still running. goleak retries for a short while, so goroutines that are
// already on their way out are not reported.
//
// A test that calls Check must not call t.Parallel: goleak cannot tell this
// test's goroutines from those of a test running beside it.
package leakcheck

import (
	"testing"

	"go.uber.org/goleak"
)

// Check registers a cleanup that fails t if goroutines started during the
// test are still running when the test ends. Register it before anything
// else, so that it runs after every other cleanup.
func Check(t testing.TB) {
	t.Helper()
	before := goleak.IgnoreCurrent()
	t.Cleanup(func() {
		if err := goleak.Find(before); err != nil {
			t.Errorf("goroutines still running after the test ended — something was not stopped, closed or cancelled:\n%v", err)
		}
	})
}
