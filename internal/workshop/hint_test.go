package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestHintOrder(t *testing.T) {
	t.Parallel()
	a, stdout, _ := testApp(t, fixture(t), "")
	hint := func() string {
		t.Helper()
		stdout.Reset()
		require.Equal(t, exitOK, a.hint(ctx(t), []string{"01", "1"}), "hint 01 1")
		return stdout.String()
	}
	first := hint()
	assert.Contains(t, first, "hint 1 of 2", "the first time: the first hint")
	assert.Contains(t, first, "The gentlest hint", "the gentlest hint comes first")
	assert.NotContains(t, first, "The last hint", "one hint at a time")
	assert.Contains(t, first, "Ask again for the next one: go tool workshop hint 01 1", "how to get the next")

	second := hint()
	assert.Contains(t, second, "hint 2 of 2", "the second time: the second hint")
	assert.Contains(t, second, "The last hint: use the + operator.", "the second hint's text")
	assert.Contains(t, second, "That was the last hint; the finished code is in solutions/01-solved", "the last hint says where the answer is")

	assert.Contains(t, hint(), "hint 2 of 2", "after the last, the last again")

	stdout.Reset()
	require.Equal(t, exitOK, a.hint(ctx(t), []string{"01", "2"}), "hint 01 2")
	assert.Contains(t, stdout.String(), "hint 1 of 1", "each task counts its own hints")

	stdout.Reset()
	require.Equal(t, exitOK, a.hint(ctx(t), []string{"-all", "01", "1"}), "hint -all 01 1")
	assert.Contains(t, stdout.String(), "The gentlest hint", "-all shows the first hint")
	assert.Contains(t, stdout.String(), "The last hint", "-all shows the last hint")

	stdout.Reset()
	require.Equal(t, exitOK, a.hint(ctx(t), nil), "hint with no step: the current step's next task")
	assert.Contains(t, stdout.String(), "02-unsolved, task 1", "hint with no argument: the first task not done")

	assert.Equal(t, exitUsage, a.hint(ctx(t), []string{"02", "9"}), "hint for a task that does not exist")
}

func TestHintWhenEveryTaskPasses(t *testing.T) {
	t.Parallel()
	root := filepath.Join(t.TempDir(), "course")
	require.NoError(t, os.CopyFS(root, os.DirFS(fixture(t))), "copying the fixture")
	a, stdout, stderr := testApp(t, root, "")
	require.Equal(t, exitOK, a.hint(ctx(t), []string{"01"}), "hint 01, every task done; stderr: %s", stderr)
	assert.Contains(t, stdout.String(), "01-solved is done: every task passes and go vet is clean", "no hint for a done step")
	assert.NotContains(t, stdout.String(), "hint 1 of", "no task's hint for a done step")
	assert.Contains(t, stdout.String(), "go tool workshop hint 01 N (N from 1 to", "how to ask for a task's hints anyway")

	// The tests pass, but the cancel is lost: only go vet says so.
	write(t, root, "02-unsolved/double.go", "package double\n\nimport \"context\"\n\n"+
		"func Double(n int) int {\n\tctx, _ := context.WithCancel(context.Background())\n\t_ = ctx\n\treturn 2 * n\n}\n")
	stdout.Reset()
	assert.Equal(t, exitOK, a.hint(ctx(t), []string{"02"}), "hint 02: tests pass, vet fails; hint answered, so 0")
	out := stdout.String()
	assert.Contains(t, out, "every task's tests pass, but go vet does not", "says what is left")
	assert.Contains(t, out, "cancel", "shows vet's complaint")
	assert.NotContains(t, out, "hint 1 of", "task 1's hint is not about vet")
	assert.Contains(t, out, "go tool workshop check 02", "says how to check the fix")
}

func TestHintStateUnreadable(t *testing.T) {
	t.Parallel()
	for _, state := range []string{`{"01-solved/1": "two"}`, "not JSON"} {
		a, stdout, stderr := testApp(t, fixture(t), "")
		require.NoError(t, os.WriteFile(filepath.Join(a.stateDir, "hints.json"), []byte(state), 0o644), "writing the hints state")
		assert.Equal(t, exitOK, a.hint(ctx(t), []string{"01", "1"}), "hint 01 1 with the state %s", state)
		assert.Contains(t, stdout.String(), "hint 1 of 2", "hint 01 1 with the state %s: want a fresh start, the first hint", state)
		assert.Contains(t, stderr.String(), "starting again from the first hint", "hint 01 1 with the state %s: want it to say the state was unreadable", state)
	}
}
