package leakcheck

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// recorder is a testing.TB that keeps failures instead of reporting them,
// so the check itself can be checked.
type recorder struct {
	testing.TB
	failed   bool
	cleanups []func()
}

func (r *recorder) Helper()               {}
func (r *recorder) Cleanup(f func())      { r.cleanups = append(r.cleanups, f) }
func (r *recorder) Errorf(string, ...any) { r.failed = true }
func (r *recorder) runCleanups() {
	for i := len(r.cleanups) - 1; i >= 0; i-- {
		r.cleanups[i]()
	}
}

func TestCheck(t *testing.T) {
	t.Run("passes when every goroutine has returned", func(t *testing.T) {
		r := &recorder{TB: t}
		Check(r)
		done := make(chan struct{})
		go func() { close(done) }()
		<-done
		r.runCleanups()
		assert.False(t, r.failed, "Check reported a leak, but the only goroutine started had returned")
	})

	t.Run("fails when a goroutine is still blocked", func(t *testing.T) {
		r := &recorder{TB: t}
		Check(r)
		stop := make(chan struct{})
		go func() { <-stop }()
		r.runCleanups()
		close(stop)
		assert.True(t, r.failed, "Check passed, but a goroutine was still blocked on a channel")
	})
}
