package course

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// A step is finished, as the cache knows it, only when its tasks pass and
// go vet was clean: tests ✓ with vet ✗, or with vet not yet run, is not.
func TestCacheFinished(t *testing.T) {
	c := Cache{Dir: t.TempDir()}
	green := func(hash string) { c.Store(&StepStatus{Hash: hash, Tasks: []TaskResult{{N: 1, Done: true}}}) }
	green("clean")
	c.put("vet", "clean", vetVerdict{"clean", ""})
	green("finding")
	c.put("vet", "finding", vetVerdict{"finding", "x.go:3: lostcancel"})
	green("unvetted")
	c.Store(&StepStatus{Hash: "red", Tasks: []TaskResult{{N: 1}}})
	c.put("vet", "red", vetVerdict{"red", ""})

	for hash, want := range map[string]bool{"clean": true, "finding": false, "unvetted": false, "red": false, "unknown": false} {
		assert.Equal(t, want, c.Finished(hash), "Finished(%q)", hash)
	}
}
