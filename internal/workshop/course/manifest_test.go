package course

// The course manifest, decoded strictly, and the tasks the runner takes from
// it. (The integrity check's proof that README, starter and folders agree
// with it is in solutions/.)

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const fixtureManifest = `steps:
  - dir: 07-example
    title: "Step 07 — Example"
    tasks:
      - task: 1
        title: 'Add'
        files: [add.go]
        run: 'TestAdd'
        hints: hints/task-1.md
      - task: 2
        title: 'Watch'
        files: []
        run: 'TestWatch|ExampleWatch'
        hints: hints/task-2.md
`

func TestParseManifest(t *testing.T) {
	m, err := ParseManifest([]byte(fixtureManifest))
	require.NoError(t, err, "ParseManifest")
	ms, ok := m.Step("07-example")
	require.True(t, ok, "Step(07-example)")
	assert.Equal(t, ManifestTask{Task: 2, Title: "Watch", Files: []string{}, Run: "TestWatch|ExampleWatch", Hints: "hints/task-2.md"}, ms.Tasks[1], "task 2")
	assert.Equal(t, "go test -run 'TestAdd' .", ms.Tasks[0].Command(), "Command")

	_, err = ParseManifest([]byte("steps:\n  - dir: 01-x\n    titel: typo\n"))
	assert.ErrorContains(t, err, "field titel not found", "an unknown field is an error")
	_, err = ParseManifest([]byte("steps: []\n---\nsteps: []\n"))
	assert.ErrorContains(t, err, "one YAML document only", "a second document")

	readme := "# Step 07 — Example\n\n## Tasks\n\n### Task 1: Add\n\n```\ngo test -run 'TestAdd' .\n```\n\n" +
		"### Task 2: Watch\n\n`go test -run 'TestWatch|ExampleWatch' .`\n"
	tasks := ManifestTasks(ms, readme)
	assert.Equal(t, 5, tasks[0].Line, "a manifest task has its README heading's line")
	assert.Contains(t, tasks[1].Section, "### Task 2: Watch", "and its section")
}

// TestRunPatternShellSafe: a run pattern is printed inside quotes, single
// on Unix and double on Windows; one a shell would end, split or expand
// there gets no command to paste (the integrity check names it:
// solutions/agree_test.go).
func TestRunPatternShellSafe(t *testing.T) {
	for _, run := range []string{"TestA|TestB", "TestMenu$|TestRun", "^(TestDo|ExampleDo)$", "Test five minus three", `Test\d$`} {
		ms := &ManifestStep{Dir: "01-x", Title: "X", Tasks: []ManifestTask{{Task: 1, Title: "a", Run: run, Hints: "h.md"}}}
		assert.Equal(t, "go test -run '"+run+"' .", ManifestTasks(ms, "")[0].Command, "run %q: its command", run)
	}
	for _, run := range []string{"TestA'; touch pwned; echo '", "TestA\nTestB", `TestA"`, "Test`id`", "Test%PATH%", "Test$HOME", "Test$(id)", "Test\x1b"} {
		ms := &ManifestStep{Dir: "01-x", Title: "X", Tasks: []ManifestTask{{Task: 1, Title: "a", Run: run, Hints: "h.md"}}}
		assert.Empty(t, ManifestTasks(ms, "")[0].Command, "run %q: no command to paste", run)
	}
}
