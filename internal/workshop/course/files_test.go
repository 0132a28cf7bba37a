package course

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestFirstDifference(t *testing.T) {
	for _, tc := range []struct{ a, b, want string }{
		{"same\nfile\n", "same\nfile\n", ""},
		{"package x\nfunc A() {}\n", "package x\nfunc B() {}\n", `line 2: step has "func A() {}", solution has "func B() {}"`},
		{"package x\n", "package x\n// more\n", `line 2: the step's file ends, the solution's goes on with "// more"`},
		{"package x\n// more\n", "package x\n", `line 2: the solution's file ends, the step's goes on with "// more"`},
		{"package x\r\n", "package x\n", `line 1: step has "package x\r", solution has "package x"`},
	} {
		assert.Equal(t, tc.want, firstDifference([]byte(tc.a), []byte(tc.b)), "firstDifference(%q, %q)", tc.a, tc.b)
	}
}

func TestTestFileProblems(t *testing.T) {
	step, solution := t.TempDir(), t.TempDir()
	write := func(dir, name, content string) {
		t.Helper()
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644), "writing a fixture")
	}
	write(step, "stock.go", "package stock // TODO(task 1): differs from the solution, as it should\n")
	write(solution, "stock.go", "package stock\n")
	write(step, "stock_test.go", "package stock\n")
	write(solution, "stock_test.go", "package stock\n")
	write(step, "counters_test.go", "package stock\n// task 2\n")
	write(solution, "counters_test.go", "package stock\n// task 3\n")
	write(step, "only_in_step_test.go", "package stock\n")
	write(solution, "only_in_solution_test.go", "package stock\n")

	problems, err := TestFileProblems(step, solution)
	require.NoError(t, err, "testFileProblems")
	assert.Equal(t, []string{
		`counters_test.go differs between the step and its solution: line 2: step has "// task 2", solution has "// task 3"`,
		"only_in_step_test.go is in the step but not in its solution",
		"only_in_solution_test.go is in the solution but not in the step",
	}, problems, "problems of the fixture's test files")

	empty := t.TempDir()
	problems, err = TestFileProblems(empty, empty)
	require.NoError(t, err, "testFileProblems of an empty step")
	assert.Equal(t, []string{"the step has no *_test.go file"}, problems, "a step without tests")

	todos, err := StarterTODOs(step)
	require.NoError(t, err, "starterTODOs")
	assert.Equal(t, []Todo{{File: "stock.go", Line: 1, N: 1}}, todos, "TODOs of the starter, not of its tests")
}
