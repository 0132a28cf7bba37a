package solutions

// The integrity check's checks, each shown failing on a bad fixture: a check
// that cannot fail proves nothing.

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/icecreamcorp/go-cancellation-workshop/internal/gotest"
	"github.com/icecreamcorp/go-cancellation-workshop/internal/workshop/course"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// exampleStep is a step of the manifest with two tasks.
var exampleStep = course.ManifestStep{Dir: "07-example", Title: "Step 07 — Example", Tasks: []course.ManifestTask{
	{Task: 1, Title: "Add", Files: []string{"add.go"}, Run: "TestAdd", Hints: "hints/task-1.md"},
	{Task: 2, Title: "Watch", Files: []string{}, Run: "TestWatch|ExampleWatch", Hints: "hints/task-2.md"},
}}

func TestManifestProblems(t *testing.T) {
	assert.Empty(t, manifestProblems(&course.Manifest{Steps: []course.ManifestStep{exampleStep}}), "a good manifest")

	bad, err := course.ParseManifest([]byte("steps:\n  - dir: 01-x\n    title: X\n    tasks:\n      - task: 2\n        title: a\n        run: 'Test('\n        hints: h.md\n        files: [a_test.go]\n"))
	require.NoError(t, err, "ParseManifest of a decodable but bad manifest")
	assert.Equal(t, []string{
		"course.yaml: 01-x task 2 comes where task 1 should: number tasks 1, 2, 3… in order",
		"course.yaml: 01-x task 2: run 'Test(' is not a valid pattern: error parsing regexp: missing closing ): `Test(`",
		`course.yaml: 01-x task 2: file "a_test.go" is not a starter .go file of the step's folder`,
	}, manifestProblems(bad), "manifestProblems")
	sub, err := course.ParseManifest([]byte("steps:\n  - dir: 01-x\n    title: X\n    tasks:\n      - task: 1\n        title: a\n        run: 'TestA/b'\n        hints: h.md\n"))
	require.NoError(t, err, "ParseManifest of a run that names subtests")
	assert.Equal(t, []string{"course.yaml: 01-x task 1: run 'TestA/b' names subtests: a task's run selects top-level tests"}, manifestProblems(sub), "a subtest pattern")
}

// A run pattern is printed inside quotes, single on Unix and double on
// Windows: one a shell would end, split or expand there is a manifest
// problem (and gets no command to paste: course's TestRunPatternShellSafe).
func TestRunPatternShellSafe(t *testing.T) {
	manifest := func(run string) *course.Manifest {
		return &course.Manifest{Steps: []course.ManifestStep{{Dir: "01-x", Title: "X", Tasks: []course.ManifestTask{{Task: 1, Title: "a", Run: run, Hints: "h.md"}}}}}
	}
	for _, run := range []string{"TestA|TestB", "TestMenu$|TestRun", "^(TestDo|ExampleDo)$", "Test five minus three", `Test\d$`} {
		assert.Empty(t, manifestProblems(manifest(run)), "run %q is safe in either quotes", run)
	}
	for run, bad := range map[string]string{"TestA'; touch pwned; echo '": "'", "TestA\nTestB": "\n", `TestA"`: `"`,
		"Test`id`": "`", "Test%PATH%": "%", "Test$HOME": "$H", "Test$(id)": "$(", "Test\x1b": "\x1b"} {
		assert.Equal(t, []string{fmt.Sprintf("course.yaml: 01-x task 1: run %q holds %q, which a shell would end, split or expand inside the quotes its command is printed in: select the tests without it", run, bad)},
			manifestProblems(manifest(run)), "run %q", run)
	}
}

func TestFolderProblems(t *testing.T) {
	m := &course.Manifest{Steps: []course.ManifestStep{exampleStep}}
	assert.Equal(t, []string{
		"step folder 08-new is not in course.yaml: list its tasks there",
		"course.yaml lists 07-example, which is no step folder ([0-9][0-9]-*) of the module",
	}, folderProblems(m, []course.Step{{Name: "08-new"}}), "a folder not listed, a listed step without its folder")
}

func TestReadmeProblems(t *testing.T) {
	step := course.Step{Name: "07-example", Num: 7}
	good := "# Step 07 — Example\n\n## Tasks\n\n### Task 1: Add\n\n```\ngo test -run 'TestAdd' .\n```\n\nStuck? `go tool workshop hint 07 1`\n\n" +
		"### Task 2: Watch\n\n`go test -run 'TestWatch|ExampleWatch' .`\n\nStuck? `go tool workshop hint 07 2`\n"
	assert.Empty(t, readmeProblems(step, &exampleStep, good), "a README that agrees")

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
	}, readmeProblems(step, &exampleStep, bad), "a README that does not agree")
	twice := strings.Replace(good, "`go test -run 'TestWatch|ExampleWatch' .`", "`go test -run 'TestWatch|ExampleWatch' .` or `go test -run 'TestWatch' .`", 1)
	assert.Equal(t, []string{
		"README.md:13: task 2's section must show its command `go test -run 'TestWatch|ExampleWatch' .` (from course.yaml), and no other go test -run: one command per task",
	}, readmeProblems(step, &exampleStep, twice), "a task with a second command")
}

func TestTODOs(t *testing.T) {
	src := "package stock\n\n" +
		"// TODO(task 1): encode the stock as JSON. See encoding/json.\n" +
		"func a() {} // TODO(task 2): one. TODO(task 9): two on a line\n" +
		"// TODO(task two): not a number\n" +
		"// TODO: a plain TODO is not a task marker\n"
	assert.Equal(t, []todo{
		{File: "stock.go", Line: 3, N: 1},
		{File: "stock.go", Line: 4, N: 2},
		{File: "stock.go", Line: 4, N: 9},
		{File: "stock.go", Line: 5, N: 0},
	}, scanTODOs("stock.go", src), "scanTODOs")

	assert.Empty(t, todoFileProblems(&exampleStep, []todo{{File: "add.go", Line: 3, N: 1}}), "the TODO is in the file task 1 lists")
	assert.Equal(t, []string{
		"other.go:4: TODO(task 1) is in a file task 1 does not list (course.yaml lists [add.go])",
		"add.go:5: TODO(task 9), but course.yaml has no task 9 for 07-example",
		"add.go:6: a TODO(task …) marker without a task number: write TODO(task N)",
		"course.yaml lists add.go for task 1, but it holds no TODO(task 1)",
	}, todoFileProblems(&exampleStep, []todo{{File: "other.go", Line: 4, N: 1}, {File: "add.go", Line: 5, N: 9}, {File: "add.go", Line: 6, N: 0}}),
		"TODOs in the wrong file, of no task, without a number; a listed file without its TODO")
}

// write writes a fixture file, and the folders it is in.
func write(t *testing.T, dir, name, content string) {
	t.Helper()
	path := filepath.Join(dir, filepath.FromSlash(name))
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755), "mkdir for %s", name)
	require.NoError(t, os.WriteFile(path, []byte(content), 0o644), "writing %s", name)
}

func TestHintProblems(t *testing.T) {
	dir := t.TempDir()
	step := course.Step{Name: "07-example", Num: 7, Dir: dir}
	write(t, dir, "hints/task-1.md", "A hint.\n---\nAnother.\n")
	write(t, dir, "hints/task-2.md", "\n---\n")
	write(t, dir, "hints/task-9.md", "For no task.\n")
	tasks := []course.Task{{N: 1, Hints: "hints/task-1.md"}, {N: 2, Hints: "hints/task-2.md"}, {N: 3, Hints: "hints/task-3.md"}}
	assert.Equal(t, []string{
		"hints/task-2.md holds no hint",
		"task 3 has no hints file hints/task-3.md: write one or more hints, gentlest first, separated by a line that holds only ---",
		"hints/task-9.md is no task's hints file in course.yaml",
	}, hintProblems(step, tasks), "hintProblems of a step with an empty, a missing and a stray hints file")
}

func TestSolutionTestProblems(t *testing.T) {
	root := t.TempDir()
	step := course.Step{Name: "01-stock", Num: 1, Dir: filepath.Join(root, "01-stock")}
	solution := step.SolutionDir(root)
	write(t, step.Dir, "stock.go", "package stock // TODO(task 1): differs from the solution, as it should\n")
	write(t, solution, "stock.go", "package stock\n")
	write(t, step.Dir, "stock_test.go", "package stock // TODO(task 2): a test's TODO is no starter's\n")

	problems, err := solutionTestProblems(step, solution)
	require.NoError(t, err, "solutionTestProblems")
	assert.Empty(t, problems, "tests in the step alone")

	write(t, solution, "stock_test.go", "package stock\n")
	problems, err = solutionTestProblems(step, solution)
	require.NoError(t, err, "solutionTestProblems")
	require.Len(t, problems, 1, "a test file in the solution: %q", problems)
	assert.Contains(t, problems[0], "solutions/01-stock/stock_test.go: a step's tests live in the step's folder alone", "the message")

	empty := course.Step{Name: "02-empty", Dir: t.TempDir()}
	problems, err = solutionTestProblems(empty, t.TempDir())
	require.NoError(t, err, "solutionTestProblems of an empty step")
	assert.Equal(t, []string{"the step has no *_test.go file", "solutions/02-empty has no .go file to put over the step"}, problems, "a step without tests")

	todos, err := sourceTODOs(step.Dir)
	require.NoError(t, err, "sourceTODOs")
	assert.Equal(t, []todo{{File: "stock.go", Line: 1, N: 1}}, todos, "TODOs of the starter, not of its tests")
}

func TestSelectionProblems(t *testing.T) {
	task := func(n int, run string) course.Task { return course.Task{N: n, Run: run} }
	tasks := []course.Task{task(1, "TestMenu"), task(2, "TestMenuWaits|ExampleWait"), task(3, "^TestSub$")}
	assert.Empty(t, selectionProblems(tasks, []string{"TestSub", "ExampleWait", "BenchmarkMenu", "TestMenu"}), "each selected once; a benchmark needs no task")
	assert.Equal(t, []string{
		"TestMenuWaits is selected by the runs of tasks 1 and 2: a test belongs to one task (anchor the patterns, e.g. '^TestMenu$')",
		"ExampleOther is selected by no task's run in course.yaml: add it to one task's pattern, or rename it",
		"course.yaml: task 3: go test -run '^TestSub$' selects no test (top-level tests: TestMenuWaits, ExampleOther, BenchmarkSub)",
	}, selectionProblems(tasks, []string{"TestMenuWaits", "ExampleOther", "BenchmarkSub"}), "a test of two tasks, an example of none, a task that selects only a benchmark")
}

// The red an exercise should start with, and every wrong kind of red. (How
// a run that crashed or hung is told, and quoted, is course.RunProblem's,
// tested there.)
func TestStarterProblem(t *testing.T) {
	red := gotest.TestRun{Result: "fail", Elapsed: 0.021, Ran: []string{"TestA", "TestA/sub", "TestB"}, Failed: []string{"TestA/sub", "TestA"}}
	assert.Empty(t, starterProblem(&red, "", time.Second), "failing assertions within budget are the right red")

	for _, tc := range []struct {
		name   string
		run    gotest.TestRun
		stderr string
		budget time.Duration
		want   []string // fragments of the message
	}{
		{"tests that pass", gotest.TestRun{Result: "pass", Ran: []string{"TestA"}}, "", time.Second,
			[]string{"its tests pass on the starter: an exercise must start red"}},
		{"no tests", gotest.TestRun{Result: "skip"}, "", time.Second,
			[]string{"it has no tests to fail"}},
		{"a build failure", gotest.TestRun{Result: "fail", BuildFailed: true, BuildOutput: "f_test.go:3:28: undefined: undefinedThing\n"}, "", time.Second,
			[]string{"the step does not build", "undefined: undefinedThing", "a starter must build"}},
		{"a panic", gotest.TestRun{Result: "fail", Ran: []string{"TestA"}, Failed: []string{"TestA"},
			ByTest: map[string][]string{"TestA": {"panic: assignment to entry in nil map"}}, Output: []string{"panic: assignment to entry in nil map"}}, "", time.Second,
			[]string{"the tests crashed in TestA (panic: assignment to entry in nil map)", "never block or panic"}},
		{"a failure outside any test", gotest.TestRun{Result: "fail", Output: []string{"setup failed", "FAIL\tfx/testmain\t0.020s"}}, "", time.Second,
			[]string{"the test binary failed, but no test did", "TestMain", "setup failed"}},
		{"a red run over budget", red, "", 10 * time.Millisecond,
			[]string{"its tests took 21ms to fail, over the budget of 10ms"}},
		{"no result at all", gotest.TestRun{}, "go: cannot find main module\n", time.Second,
			[]string{"go test gave no result", "cannot find main module"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := starterProblem(&tc.run, tc.stderr, tc.budget)
			for _, want := range tc.want {
				assert.Contains(t, p, want, "the message for %s", tc.name)
			}
		})
	}
}

func TestIsVetFailure(t *testing.T) {
	assert.True(t, isVetFailure("# fx/vet\n# [fx/vet]\n./a.go:5:33: the cancel function returned by context.WithTimeout should be called\n"), "vet's complaint is told from the compiler's")
	assert.False(t, isVetFailure("# fx/build [fx/build.test]\nbuild/f_test.go:3:28: undefined: undefinedThing\n"), "the compiler's complaint is no vet failure")
}

func TestCatalogProblems(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "add.go", "package add\n\nfunc Add(a, b int) int {\n\treturn a + b\n}\n\nfunc f(n int) {\n\tn++\n\tn++\n}\n")
	entries := course.ParseCatalog("# Mistakes: 07-example\n\n## Task 1: Add\n\n" +
		"### Subtracts\n\n```diff\n--- add.go\n@@\n-\treturn a + b\n+\treturn a - b\n```\n\n" +
		"## Task 2: Watching\n\n### Matches twice\n\n```diff\n--- add.go\n@@\n-\tn++\n```\n\n" +
		"## Task 9: None\n\n### Of no task\n\n```diff\n--- add.go\n@@\n-\treturn a + b\n+\treturn b + a\n```\n")
	tasks := []course.Task{{N: 1, Title: "Add", Files: []string{"add.go"}}, {N: 2, Title: "Watch"}}
	problems, counts := catalogProblems(tasks, dir, entries)
	assert.Equal(t, map[int]int{1: 1, 2: 1}, counts, "counts per task")
	assert.Equal(t, []string{
		`MISTAKES.md:16: task 2, "Matches twice": its section says "## Task 2: Watching", course.yaml says "Watch"`,
		"MISTAKES.md:16: task 2, \"Matches twice\": hunk 1 of add.go matches 2 times, want exactly once:\n\t\tn++",
		`MISTAKES.md:26: task 9, "Of no task": no task 9 in course.yaml (under "## Task N: <title>")`,
	}, problems, "catalogProblems")
	assert.Equal(t, []string{"task 1 has 1 catalog entries, want at least 3"}, shortTasks(tasks, counts), "task 2 has no files: it needs none")
}
