package cpu

import (
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestTime(t *testing.T) {
	if runtime.GOOS == "js" || runtime.GOOS == "wasip1" {
		t.Skip("no process CPU time on", runtime.GOOS)
	}
	before := Time()
	deadline := time.Now().Add(50 * time.Millisecond)
	n := 0
	for time.Now().Before(deadline) { // spin: use the CPU for 50ms of wall time
		n++
	}
	used := Time() - before
	assert.Positive(t, used, "CPU time used by %d rounds of a busy loop", n)
	assert.Less(t, used, 5*time.Second, "CPU time used by a 50ms busy loop")
}
