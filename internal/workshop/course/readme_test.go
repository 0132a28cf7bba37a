package course

// A README's tasks and their sections, and which tests a -run pattern
// selects.

import (
	"strings"
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
	t.Run("finds the tasks of the Tasks section and their sections", func(t *testing.T) {
		tasks, err := ReadmeTasks(goodReadme)
		require.NoError(t, err, "ReadmeTasks(goodReadme)")
		require.Len(t, tasks, 2, "tasks of goodReadme")
		assert.Equal(t, Task{N: 1, Title: "answer with JSON", Line: 7}, Task{N: tasks[0].N, Title: tasks[0].Title, Line: tasks[0].Line},
			"task 1 of goodReadme")
		assert.Equal(t, Task{N: 2, Title: "give up when the caller leaves", Line: 20,
			Section: "### Task 2: give up when the caller leaves\n\n    go test -run 'TestAbandon|TestCounters' ./01-stock-service\n",
		}, tasks[1], "task 2 of goodReadme: its section ends where the next ## heading begins")
		assert.Contains(t, tasks[0].Section, "### Task 7: not a heading", "a heading in a code block stays in its task's section")
	})

	t.Run("a README without a Tasks section is an error", func(t *testing.T) {
		_, err := ReadmeTasks("# Step\n\n### Task 1: x\n\ngo test -run 'TestX' .\n")
		assert.ErrorContains(t, err, `no "## Tasks" section`, "readmeTasks of a README without ## Tasks")
	})
}

func TestSelects(t *testing.T) {
	run := ParseTestJSON(strings.NewReader(failingRun))
	for _, tc := range []struct {
		pattern string
		want    []string
	}{
		{"TestA", []string{"TestA"}},
		{"^TestB$|TestA", []string{"TestA", "TestB"}},
		{"Test", []string{"TestA", "TestB"}},
		{"TestNoSuchTest", nil},
	} {
		assert.Equal(t, tc.want, run.Selects(tc.pattern), "Selects(%q): the top-level tests go test -run would run", tc.pattern)
	}
	assert.Empty(t, run.Selects("TestA("), "a bad regexp selects no test: the task is not done")
	assert.Empty(t, run.Selects("TestA/sub"), "a subtest pattern selects no top-level test: the task is not done")
}
