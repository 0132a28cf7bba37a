package course

// The proof that README, starter and folders agree with course.yaml, shown
// failing on bad fixtures: a check that cannot fail proves nothing.

import (
	"fmt"
	"strings"
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

func exampleStep(t *testing.T) *ManifestStep {
	t.Helper()
	m, err := ParseManifest([]byte(fixtureManifest))
	require.NoError(t, err, "ParseManifest")
	assert.Empty(t, m.Problems(), "a good manifest")
	ms, ok := m.Step("07-example")
	require.True(t, ok, "Step(07-example)")
	return ms
}

func TestParseManifest(t *testing.T) {
	ms := exampleStep(t)
	assert.Equal(t, ManifestTask{Task: 2, Title: "Watch", Files: []string{}, Run: "TestWatch|ExampleWatch", Hints: "hints/task-2.md"}, ms.Tasks[1], "task 2")
	assert.Equal(t, "go test -run 'TestAdd' .", ms.Tasks[0].Command(), "Command")

	_, err := ParseManifest([]byte("steps:\n  - dir: 01-x\n    titel: typo\n"))
	assert.ErrorContains(t, err, "field titel not found", "an unknown field is an error")
	_, err = ParseManifest([]byte("steps: []\n---\nsteps: []\n"))
	assert.ErrorContains(t, err, "one YAML document only", "a second document")

	bad, err := ParseManifest([]byte("steps:\n  - dir: 01-x\n    title: X\n    tasks:\n      - task: 2\n        title: a\n        run: 'Test('\n        hints: h.md\n        files: [a_test.go]\n"))
	require.NoError(t, err, "ParseManifest of a decodable but bad manifest")
	assert.Equal(t, []string{
		"course.yaml: 01-x task 2 comes where task 1 should: number tasks 1, 2, 3… in order",
		"course.yaml: 01-x task 2: run 'Test(' is not a valid pattern: error parsing regexp: missing closing ): `Test(`",
		`course.yaml: 01-x task 2: file "a_test.go" is not a starter .go file of the step's folder`,
	}, bad.Problems(), "Problems")
	sub, err := ParseManifest([]byte("steps:\n  - dir: 01-x\n    title: X\n    tasks:\n      - task: 1\n        title: a\n        run: 'TestA/b'\n        hints: h.md\n"))
	require.NoError(t, err, "ParseManifest of a run that names subtests")
	assert.Equal(t, []string{"course.yaml: 01-x task 1: run 'TestA/b' names subtests: a task's run selects top-level tests"}, sub.Problems(), "a subtest pattern")
}

func TestReadmeProblems(t *testing.T) {
	ms := exampleStep(t)
	step := Step{Name: "07-example", Num: 7}
	good := "# Step 07 — Example\n\n## Tasks\n\n### Task 1: Add\n\n```\ngo test -run 'TestAdd' .\n```\n\nStuck? `go tool workshop hint 07 1`\n\n" +
		"### Task 2: Watch\n\n`go test -run 'TestWatch|ExampleWatch' .`\n\nStuck? `go tool workshop hint 07 2`\n"
	assert.Empty(t, ReadmeProblems(step, ms, good), "a README that agrees")
	tasks := ManifestTasks(ms, good)
	assert.Equal(t, 5, tasks[0].Line, "a manifest task has its README heading's line")
	assert.Contains(t, tasks[1].Section, "### Task 2: Watch", "and its section")

	bad := "# Step 07\n\n## Tasks\n\n### Task 1: Adding\n\n`go test -run 'TestAdd' .`\n\n" +
		"### Task 2: Watch\n\n`go test -run 'TestWatch' .`\n\n<details><summary>Hints</summary>\n\n- the answer\n</details>\n\n" +
		"### Task 3: More\n"
	assert.Equal(t, []string{
		`README.md's title is "Step 07", course.yaml says "Step 07 — Example"`,
		"README.md:13: a <details> block: a terminal prints it in full; hints go in hints/task-N.md, answers in the solution",
		`README.md:5: "### Task 1: Adding" where course.yaml has "### Task 1: Add"`,
		"README.md:9: task 2's section must show its command `go test -run 'TestWatch|ExampleWatch' .` (from course.yaml), and no other go test -run: one command per task",
		"README.md:9: task 2 does not say how to ask for its hints: write Stuck? `go tool workshop hint 07 2`",
		`README.md:18: "### Task 3" is not in course.yaml`,
	}, ReadmeProblems(step, ms, bad), "a README that does not agree")
	twice := strings.Replace(good, "`go test -run 'TestWatch|ExampleWatch' .`", "`go test -run 'TestWatch|ExampleWatch' .` or `go test -run 'TestWatch' .`", 1)
	assert.Equal(t, []string{
		"README.md:13: task 2's section must show its command `go test -run 'TestWatch|ExampleWatch' .` (from course.yaml), and no other go test -run: one command per task",
	}, ReadmeProblems(step, ms, twice), "a task with a second command")
}

func TestTODOFileProblems(t *testing.T) {
	ms := exampleStep(t)
	assert.Empty(t, TODOFileProblems(ms, []Todo{{File: "add.go", Line: 3, N: 1}}), "the TODO is in the file task 1 lists")
	assert.Equal(t, []string{
		"other.go:4: TODO(task 1) is in a file task 1 does not list (course.yaml lists [add.go])",
		"add.go:5: TODO(task 9), but course.yaml has no task 9 for 07-example",
		"add.go:6: a TODO(task …) marker without a task number: write TODO(task N)",
		"course.yaml lists add.go for task 1, but it holds no TODO(task 1)",
	}, TODOFileProblems(ms, []Todo{{File: "other.go", Line: 4, N: 1}, {File: "add.go", Line: 5, N: 9}, {File: "add.go", Line: 6, N: 0}}),
		"TODOs in the wrong file, of no task, without a number; a listed file without its TODO")
}

func TestFolderProblems(t *testing.T) {
	m, err := ParseManifest([]byte(fixtureManifest))
	require.NoError(t, err, "ParseManifest")
	assert.Equal(t, []string{
		"step folder 08-new is not in course.yaml: list its tasks there",
		"course.yaml lists 07-example, which is no step folder ([0-9][0-9]-*) of the module",
	}, FolderProblems(m, []Step{{Name: "08-new"}}), "a folder not listed, a listed step without its folder")
}

// TestRunPatternShellSafe: a run pattern is printed inside quotes, single
// on Unix and double on Windows; one a shell would end, split or expand
// there is a manifest problem, and gets no command to paste.
func TestRunPatternShellSafe(t *testing.T) {
	for _, run := range []string{"TestA|TestB", "TestMenu$|TestRun", "^(TestDo|ExampleDo)$", "Test five minus three", `Test\d$`} {
		m := &Manifest{Steps: []ManifestStep{{Dir: "01-x", Title: "X", Tasks: []ManifestTask{{Task: 1, Title: "a", Run: run, Hints: "h.md"}}}}}
		assert.Empty(t, m.Problems(), "run %q is safe in either quotes", run)
		assert.Equal(t, []string{"go test -run '" + run + "' ."}, ManifestTasks(&m.Steps[0], "")[0].Commands, "run %q: its command", run)
	}
	for run, bad := range map[string]string{"TestA'; touch pwned; echo '": "'", "TestA\nTestB": "\n", `TestA"`: `"`,
		"Test`id`": "`", "Test%PATH%": "%", "Test$HOME": "$H", "Test$(id)": "$(", "Test\x1b": "\x1b"} {
		m := &Manifest{Steps: []ManifestStep{{Dir: "01-x", Title: "X", Tasks: []ManifestTask{{Task: 1, Title: "a", Run: run, Hints: "h.md"}}}}}
		assert.Equal(t, []string{fmt.Sprintf("course.yaml: 01-x task 1: run %q holds %q, which a shell would end, split or expand inside the quotes its command is printed in: select the tests without it", run, bad)},
			m.Problems(), "run %q", run)
		assert.Empty(t, ManifestTasks(&m.Steps[0], "")[0].Commands, "run %q: no command to paste", run)
	}
}

func TestSelectionProblems(t *testing.T) {
	task := func(n int, run string) Task { return Task{N: n, Run: run, Patterns: []string{run}} }
	tasks := []Task{task(1, "TestMenu"), task(2, "TestMenuWaits|ExampleWait"), task(3, "^TestSub$")}
	assert.Empty(t, SelectionProblems(tasks, []string{"TestSub", "ExampleWait", "BenchmarkMenu", "TestMenu"}), "each selected once; a benchmark needs no task")
	assert.Equal(t, []string{
		"TestMenuWaits is selected by the runs of tasks 1 and 2: a test belongs to one task (anchor the patterns, e.g. '^TestMenu$')",
		"ExampleOther is selected by no task's run in course.yaml: add it to one task's pattern, or rename it",
		"course.yaml: task 3: go test -run '^TestSub$' selects no test (top-level tests: TestMenuWaits, ExampleOther, BenchmarkSub)",
	}, SelectionProblems(tasks, []string{"TestMenuWaits", "ExampleOther", "BenchmarkSub"}), "a test of two tasks, an example of none, a task that selects only a benchmark")
}
