package course

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestWorkingStep(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not on the PATH")
	}
	t.Parallel()
	root := t.TempDir()
	put := func(name, content string, age time.Duration) {
		t.Helper()
		path := filepath.Join(root, filepath.FromSlash(name))
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755), "mkdir for %s", name)
		require.NoError(t, os.WriteFile(path, []byte(content), 0o644), "writing %s", name)
		when := time.Now().Add(-age)
		require.NoError(t, os.Chtimes(path, when, when), "dating %s", name)
	}
	gitAt := func(dir string, args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"}, args...)...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "git %s: %s", strings.Join(args, " "), out)
	}
	gitIn := func(args ...string) { t.Helper(); gitAt(root, args...) }
	for _, name := range []string{"01-a", "02-b", "03-c"} {
		put(name+"/x.go", "package x\n", time.Hour)
		put(name+"/hints/task-1.md", "A hint.\n", time.Hour)
	}
	gitIn("init", "-q")
	gitIn("add", ".")
	gitIn("commit", "-q", "-m", "the starters")
	clone := filepath.Join(t.TempDir(), "clone")
	gitAt(root, "clone", "-q", root, clone)
	steps, err := Steps(root)
	require.NoError(t, err, "Steps")
	all := func(int) bool { return true }
	name := func(i int) string {
		if i < 0 {
			return "none"
		}
		return steps[i].Name
	}

	assert.Equal(t, "none", name(WorkingStep(t.Context(), root, steps, all)), "a fresh clone: no step has a change")

	put("03-c/x.go", "package x // started\n", 10*time.Minute)
	put("02-b/y.go", "package x // a new file\n", time.Minute)
	put("01-a/hints/task-1.md", "My note in a hint file.\n", 0)
	assert.Equal(t, "02-b", name(WorkingStep(t.Context(), root, steps, all)),
		"the step holding the latest change to a file other than its hints, a new file included")
	assert.Equal(t, "03-c", name(WorkingStep(t.Context(), root, steps, func(i int) bool { return i != 1 })),
		"a step that is done is not where the learner works")

	gitIn("add", ".")
	gitIn("commit", "-q", "-m", "my work")
	assert.Equal(t, "none", name(WorkingStep(t.Context(), root, steps, all)),
		"without a remote branch of the workshop, changes count from the last commit")

	// In a clone, the starter is the workshop's branch (origin's): the
	// learner's own commits still count as changes.
	path := filepath.Join(clone, "03-c", "x.go")
	require.NoError(t, os.WriteFile(path, []byte("package x // committed work\n"), 0o644), "changing the clone")
	gitAt(clone, "commit", "-q", "-am", "my work in the clone")
	cloneSteps, err := Steps(clone)
	require.NoError(t, err, "Steps of the clone")
	i := WorkingStep(t.Context(), clone, cloneSteps, all)
	require.GreaterOrEqual(t, i, 0, "WorkingStep in the clone found no step")
	assert.Equal(t, "03-c", cloneSteps[i].Name, "committed work counts, compared to origin's starter")
}
