package course

// Crashes routed to their task, on the output of real go test -json runs
// (testdata/crash: a panic in a goroutine, a synctest deadlock, a -timeout,
// a race report, and a panic outside any test).

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCrashTask(t *testing.T) {
	tasks := []Task{
		{N: 1, Patterns: []string{"TestBoom"}, Files: []string{"boom.go"}},
		{N: 2, Patterns: []string{"TestDeadlock|TestRace"}, Files: []string{"work.go"}},
		{N: 3, Patterns: []string{"TestHang/slow"}, Files: []string{"work.go"}},
	}
	for _, tc := range []struct {
		file string
		want int
	}{
		{"boom", 1},     // the test whose output holds the panic
		{"deadlock", 2}, // synctest's "panic: deadlock: all goroutines in bubble are blocked"
		{"hang", 3},     // "panic: test timed out", with the tests still running
		{"outside", 2},  // no test: the first of the step's files in the stack, work.go
	} {
		run := readRun(t, tc.file)
		assert.Equal(t, tc.want, CrashTask(&run, "03-crash", tasks), "CrashTask of testdata/crash/%s.json", tc.file)
	}

	race := readRun(t, "race")
	assert.Equal(t, 0, CrashTask(&race, "03-crash", tasks), "a race report is no crash: its test fails")
	res := TaskResults(t.Context(), Go{}, "./03-crash", tasks[:2], &race)
	assert.False(t, res[1].Done, "the race fails the task whose run selects its test")
	assert.Contains(t, res[1].Failed, "TestRace", "and names the test")
	assert.Equal(t, []string{"TestHang"}, timedOut(readRun(t, "hang").Output, "panic: test timed out after 3s"), "timedOut")
}

func readRun(t *testing.T, name string) TestRun {
	t.Helper()
	f, err := os.Open("testdata/crash/" + name + ".json")
	require.NoError(t, err, "opening the fixture")
	defer f.Close()
	return ParseTestJSON(f)
}

func TestSelectionProblems(t *testing.T) {
	tasks := []Task{{N: 1, Patterns: []string{"TestMenu"}}, {N: 2, Patterns: []string{"TestMenuWaits|ExampleWait"}}, {N: 3, Patterns: []string{"TestSub/five"}}}
	assert.Empty(t, SelectionProblems(tasks, []string{"TestSub", "ExampleWait", "BenchmarkMenu"}), "each selected once; a benchmark needs no task")
	assert.Equal(t, []string{
		"TestMenuWaits is selected by the runs of tasks 1 and 2: a test belongs to one task (anchor the patterns, e.g. '^TestMenu$')",
		"ExampleOther is selected by no task's run in course.yaml: add it to one task's pattern, or rename it",
	}, SelectionProblems(tasks, []string{"TestMenuWaits", "ExampleOther", "ok  \texample.com/x\t0.01s"}), "a test of two tasks, an example of none")
}
