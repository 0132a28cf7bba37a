// Package leakcheck proves that a test leaves no goroutine behind.
//
// Call Check first thing in a test, so that its cleanup runs last, after
// every other cleanup has closed what it opened. A test that calls Check must
// not call t.Parallel: goleak cannot tell its goroutines from another test's.
package leakcheck

import (
	"strings"
	"testing"

	"go.uber.org/goleak"
)

// Check fails t, with their stacks, if goroutines started during the test are
// still running when it ends (goleak retries briefly for those on their way out).
func Check(t testing.TB) {
	t.Helper()
	before := goleak.IgnoreCurrent()
	t.Cleanup(func() {
		if err := goleak.Find(before); err != nil {
			t.Errorf("goroutines still running after the test ended — something was not stopped, closed or cancelled%s:\n%v", advice(err.Error()), err)
		}
	})
}

// advice names a leak's usual cause. (The tests close idle connections.)
func advice(stacks string) string {
	if strings.Contains(stacks, "net/http.(*persistConn).readLoop") {
		return " (net/http's persistConn below is a connection still in use: most often a response body never closed — defer resp.Body.Close() once Get or Do succeeds)"
	}
	return ""
}
