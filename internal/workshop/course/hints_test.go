package course

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSplitHints(t *testing.T) {
	assert.Equal(t, []string{"First.", "Second,\non two lines.", "```\n---\n```\nA fence keeps its ---."},
		SplitHints("First.\n---\nSecond,\r\non two lines.\n\n---\n\n```\n---\n```\nA fence keeps its ---.\n---\n\n"),
		"SplitHints: hints between lines that hold only ---, none empty")
	assert.Empty(t, SplitHints("\n---\n\n"), "a file of separators holds no hint")
}

func TestReadHints(t *testing.T) {
	dir := t.TempDir()
	step := Step{Name: "07-example", Num: 7, Dir: dir}
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "hints"), 0o755), "mkdir")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "hints", "task-1.md"), []byte("A hint.\n---\nAnother.\n"), 0o644), "writing hints/task-1.md")
	hints, err := step.ReadHints(Task{N: 1, Hints: "hints/task-1.md"})
	require.NoError(t, err, "ReadHints(1)")
	assert.Equal(t, []string{"A hint.", "Another."}, hints, "ReadHints(1), gentlest first")
}

func TestHintState(t *testing.T) {
	dir := t.TempDir()
	st, err := LoadHintState(dir)
	require.NoError(t, err, "LoadHintState of an empty folder")
	assert.Equal(t, 0, st.Next("05-menu-v3", 1, 3), "the first hint first")
	assert.Equal(t, 1, st.Next("05-menu-v3", 1, 3), "then the second")
	assert.Equal(t, 0, st.Next("05-menu-v3", 2, 3), "each task counts its own")
	require.NoError(t, st.Save(), "Save")

	again, err := LoadHintState(dir)
	require.NoError(t, err, "LoadHintState after Save")
	assert.Equal(t, 2, again.Next("05-menu-v3", 1, 3), "remembered across runs: the third")
	assert.Equal(t, 2, again.Next("05-menu-v3", 1, 3), "after the last, the last again")
}

func TestFindStep(t *testing.T) {
	steps := []Step{{Name: "01-stock-service", Num: 1}, {Name: "05-menu-v3", Num: 5}, {Name: "06-stdlib-cancellation", Num: 6}}
	for _, arg := range []string{"05", "5", "05-menu-v3"} {
		s, err := FindStep(steps, arg)
		if assert.NoError(t, err, "FindStep(%q)", arg) {
			assert.Equal(t, "05-menu-v3", s.Name, "FindStep(%q)", arg)
		}
	}
	// A path is no name: the runner resolves paths (TestStepsOfThisCloneOnly).
	for _, arg := range []string{"7", "07-nothing", "menu", "", "solutions/05-menu-v3", "/home/me/workshop/05-menu-v3"} {
		_, err := FindStep(steps, arg)
		assert.ErrorContains(t, err, "the steps are 01-stock-service, 05-menu-v3, 06-stdlib-cancellation", "FindStep(%q) names the steps", arg)
	}
}

func TestStepHash(t *testing.T) {
	root := t.TempDir()
	step := Step{Name: "01-x", Num: 1, Dir: filepath.Join(root, "01-x")}
	write := func(name, content string) {
		t.Helper()
		path := filepath.Join(root, filepath.FromSlash(name))
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755), "mkdir")
		require.NoError(t, os.WriteFile(path, []byte(content), 0o644), "writing %s", name)
	}
	write("go.mod", "module example.com/x\n")
	write("01-x/x.go", "package x\n")
	write("01-x/README.md", "# x\n")
	hash := func() string {
		t.Helper()
		h, err := StepHash(root, step)
		require.NoError(t, err, "StepHash")
		return h
	}
	h0 := hash()
	assert.Equal(t, h0, hash(), "the same files, the same hash")
	write("01-x/hints/task-1.md", "A hint.\n")
	write("01-x/01-x", "a binary go build wrote\n")
	write("solutions/01-x/x.go", "package x // solved\n")
	assert.Equal(t, h0, hash(), "hints, a built binary and the solution do not change the step's results")
	write("01-x/x.go", "package x // changed\n")
	h1 := hash()
	assert.NotEqual(t, h0, h1, "a changed source file changes the hash")
	write("internal/kit/kit.go", "package kit\n")
	h2 := hash()
	assert.NotEqual(t, h1, h2, "shared code under internal/ changes the hash")
	write("course.yaml", "steps: []\n")
	assert.NotEqual(t, h2, hash(), "course.yaml (the tasks, their patterns) changes the hash")

	cache := Cache{Dir: t.TempDir()}
	_, ok := cache.Load(h1)
	assert.False(t, ok, "an empty cache has nothing")
	cache.Store(&StepStatus{Step: "01-x", Hash: h1, Tasks: []TaskResult{{N: 1, Done: true}}})
	got, ok := cache.Load(h1)
	require.True(t, ok, "a stored status comes back")
	assert.Equal(t, 1, got.Done(), "with its tasks")
}

func TestRunProblem(t *testing.T) {
	assert.Empty(t, RunProblem(ptr(ParseTestJSON(stringsReader(failingRun))), ""), "failing tests are no problem of the run")
	assert.Contains(t, RunProblem(ptr(ParseTestJSON(stringsReader(buildFailure))), ""), "does not build", "a build failure")
	assert.Contains(t, RunProblem(ptr(ParseTestJSON(stringsReader(timedOutRun))), ""), "the tests hung in TestA", "a hang")
	assert.Contains(t, RunProblem(ptr(ParseTestJSON(stringsReader(panickingRun))), ""), "the tests crashed in TestA", "a panic")
	assert.Contains(t, RunProblem(ptr(ParseTestJSON(stringsReader(deadlockRun))), ""), "the tests crashed in TestA (fatal error: all goroutines are asleep - deadlock!)", "a fatal runtime error")
	assert.Contains(t, RunProblem(ptr(ParseTestJSON(stringsReader(""))), "go: no go.mod"), "go: no go.mod", "go's own complaint")
}

func ptr[T any](v T) *T { return &v }
