package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A crash belongs to the task whose run selects the test it happened in:
// check shows it as that task's failure, with the task's command and hint.
func TestCheckRoutesACrash(t *testing.T) {
	t.Parallel()
	root := filepath.Join(t.TempDir(), "course")
	require.NoError(t, writeFixture(root), "writing the fixture")
	crash := "package calc\n\nfunc Add(a, b int) int { return a + b }\n\n" +
		"func Sub(a, b int) int {\n\tvar m map[int]int\n\tm[a] = b // panics\n\treturn 0\n}\n"
	require.NoError(t, os.WriteFile(filepath.Join(root, "01-solved", "calc.go"), []byte(crash), 0o644), "a Sub that panics")
	a, stdout, stderr := testApp(t, root, "")

	assert.Equal(t, exitRed, a.check(ctx(t), []string{"01"}), "check of a step whose test panics; stderr: %s", stderr)
	out := stdout.String()
	assert.Contains(t, out, "First failure — task 2: Subtract", "the panic in TestSub/… belongs to task 2, whose run selects it")
	assert.Contains(t, out, "panic: assignment to entry in nil map", "the crash itself")
	assert.Contains(t, out, "Run it alone:  cd 01-solved && go test -run 'TestSub/five minus three' .", "task 2's command")
	assert.Contains(t, out, "Stuck?         go tool workshop hint 01 2", "task 2's hint")
}
