package solutions

// The README and TODO parsing of the integrity check, proved on good and bad
// fixtures: a check that cannot fail proves nothing.

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const goodReadme = "# 01 — The stock service\n\n" +
	"Story. `go test -run 'TestIgnoredBeforeTasks' .`\n\n" +
	"## Tasks\n\n" +
	"### Task 1: answer with JSON\n\n" +
	"Write the handler.\n\n" +
	"```sh\n" +
	"go test -run 'TestStock/serves_JSON' .\n" +
	"### Task 7: not a heading, inside a code block\n" +
	"```\n\n" +
	"#### Hints\n\n" +
	"<details><summary>Hint</summary>Also `go test -v -run='TestStock/counts abandoned' .`</details>\n\n" +
	"### Task 2: give up when the caller leaves\n\n" +
	"    go test -run 'TestAbandon|TestCounters' ./01-stock-service\n\n" +
	"## Try it for real\n\n" +
	"go test -run 'TestIgnoredAfterTasks' .\n"

func TestReadmeTasks(t *testing.T) {
	t.Run("finds the tasks of the Tasks section and their run patterns", func(t *testing.T) {
		tasks, err := readmeTasks(goodReadme)
		require.NoError(t, err, "readmeTasks(goodReadme)")
		assert.Equal(t, []task{
			{N: 1, Line: 7, Patterns: []string{"TestStock/serves_JSON", "TestStock/counts abandoned"}},
			{N: 2, Line: 20, Patterns: []string{"TestAbandon|TestCounters"}},
		}, tasks, "tasks of goodReadme")
		assert.Empty(t, taskProblems(tasks), "taskProblems(goodReadme's tasks)")
	})

	t.Run("a README without a Tasks section is an error", func(t *testing.T) {
		_, err := readmeTasks("# Step\n\n### Task 1: x\n\ngo test -run 'TestX' .\n")
		assert.ErrorContains(t, err, `no "## Tasks" section`, "readmeTasks of a README without ## Tasks")
	})

	for _, tc := range []struct {
		name   string
		readme string
		want   []string
	}{{
		name:   "a Tasks section without tasks",
		readme: "## Tasks\n\nNothing yet.\n",
		want:   []string{`README.md's "## Tasks" section has no "### Task N: …" heading`},
	}, {
		name:   "a README missing task 2",
		readme: "## Tasks\n### Task 1: a\ngo test -run 'TestA' .\n### Task 3: c\ngo test -run 'TestC' .\n",
		want:   []string{"README.md:4: task 3 comes where task 2 should: number tasks 1, 2, 3… in order, without gaps"},
	}, {
		name:   "tasks out of order",
		readme: "## Tasks\n### Task 2: b\ngo test -run 'TestB' .\n### Task 1: a\ngo test -run 'TestA' .\n",
		want: []string{
			"README.md:2: task 2 comes where task 1 should: number tasks 1, 2, 3… in order, without gaps",
			"README.md:4: task 1 comes where task 2 should: number tasks 1, 2, 3… in order, without gaps",
		},
	}, {
		name:   "a task without a run command, or with its pattern in double quotes",
		readme: "## Tasks\n### Task 1: a\nRun `go test -run \"TestA\" .`\n### Task 2: b\nRun the tests.\n",
		want: []string{
			"README.md:2: task 1 names no `go test -run '…'` command (pattern in single quotes) to check it",
			"README.md:4: task 2 names no `go test -run '…'` command (pattern in single quotes) to check it",
		},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			tasks, err := readmeTasks(tc.readme)
			require.NoError(t, err, "readmeTasks(%q)", tc.readme)
			assert.Equal(t, tc.want, taskProblems(tasks), "taskProblems of %q", tc.readme)
		})
	}
}

func TestTODOs(t *testing.T) {
	src := "package stock\n\n" +
		"// TODO(task 1): encode the stock as JSON. See encoding/json.\n" +
		"func a() {} // TODO(task 2): one. TODO(task 9): two on a line\n" +
		"// TODO(task two): not a number\n" +
		"// TODO: a plain TODO is not a task marker\n"
	todos := scanTODOs("stock.go", src)
	assert.Equal(t, []todo{
		{File: "stock.go", Line: 3, N: 1},
		{File: "stock.go", Line: 4, N: 2},
		{File: "stock.go", Line: 4, N: 9},
		{File: "stock.go", Line: 5, N: 0},
	}, todos, "scanTODOs")

	tasks, err := readmeTasks(goodReadme)
	require.NoError(t, err, "readmeTasks(goodReadme)")
	assert.Equal(t, []string{
		`stock.go:4: TODO(task 9) has no "### Task 9" in README.md's "## Tasks"`,
		"stock.go:5: a TODO(task …) marker without a task number: write TODO(task N)",
	}, todoProblems(todos, tasks), "todoProblems: tasks 1 and 2 exist, 9 does not")
}

func TestSplitRunPattern(t *testing.T) {
	for pattern, want := range map[string][][]string{
		"TestStock":                     {{"TestStock"}},
		"^TestStock$/counts abandoned":  {{"^TestStock$", "counts_abandoned"}},
		"TestA|TestB/x":                 {{"TestA"}, {"TestB", "x"}},
		"Test[/|]x/y":                   {{"Test[/|]x", "y"}},
		"Test(A|B)/c":                   {{"Test(A|B)", "c"}},
		`TestA\/b`:                      {{`TestA\/b`}},
		"/only_subtests":                {{"", "only_subtests"}},
		"TestStock/JSON/with_three_ids": {{"TestStock", "JSON", "with_three_ids"}},
	} {
		assert.Equal(t, want, splitRunPattern(pattern), "splitRunPattern(%q)", pattern)
	}
}

func TestSelectedTests(t *testing.T) {
	ran := []string{"TestStock", "TestStock/serves_JSON", "TestStock/counts_abandoned_requests", "TestCounters", "ExampleSleep"}
	for _, tc := range []struct {
		pattern string
		want    []string
	}{
		{"TestStock", []string{"TestStock", "TestStock/serves_JSON", "TestStock/counts_abandoned_requests"}},
		{"TestStock/counts abandoned", []string{"TestStock/counts_abandoned_requests"}},
		{"^TestCounters$|Example", []string{"TestCounters", "ExampleSleep"}},
		{"/JSON", []string{"TestStock/serves_JSON"}},
		{"TestStock/no_such_subtest", nil}, // the parent runs, but no test is selected
		{"TestNoSuchTest", nil},
	} {
		got, err := selectedTests(tc.pattern, ran)
		require.NoError(t, err, "selectedTests(%q)", tc.pattern)
		assert.Equal(t, tc.want, got, "selectedTests(%q)", tc.pattern)
	}

	_, err := selectedTests("TestStock(", ran)
	assert.ErrorContains(t, err, "-run 'TestStock(' is not a valid pattern", "selectedTests of a bad regexp")
}

func TestPatternProblems(t *testing.T) {
	tasks := []task{
		{N: 1, Line: 5, Patterns: []string{"TestStock/serves_JSON"}},
		{N: 2, Line: 9, Patterns: []string{"TestStock/counts abandoned", "TestAbandonned"}},
	}
	ran := []string{"TestStock", "TestStock/serves_JSON", "TestStock/counts_abandoned_requests", "TestCounters"}
	assert.Equal(t, []string{
		"README.md:9: task 2: go test -run 'TestAbandonned' selects no test (top-level tests: TestStock, TestCounters)",
	}, patternProblems(tasks, ran), "patternProblems: a typo in task 2's second pattern")
}
