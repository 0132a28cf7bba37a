package course

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
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

// TopLevelTests must list what go test -list does: the integrity check reads
// the test files instead of linking every starter's tests a second time.
func TestTopLevelTestsIsGoTestList(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds a test binary")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command on the PATH")
	}
	dir := t.TempDir()
	for name, src := range map[string]string{
		"go.mod": "module example.com/fx\n\ngo 1.22\n",
		"fx.go":  "package fx\n\nfunc A() string { return \"a\" }\n",
		"a_test.go": `package fx

import (
	"fmt"
	"os"
	"testing"
)

type s struct{}

func TestMain(m *testing.M)           { os.Exit(m.Run()) }
func TestA(t *testing.T)              {}
func Test(t *testing.T)               {}
func Test_under(t *testing.T)         {}
func TestÉ(t *testing.T)              {}
func Testing(t *testing.T)            {} // lower case after Test: no test
func (s) TestMethod(t *testing.T)     {}
func BenchmarkA(b *testing.B)         {}
func FuzzA(f *testing.F)              {}
func helper(t *testing.T)             {}

func ExampleA() {
	fmt.Println(A())
	// Output: a
}

func Example_noOutput() { fmt.Println(A()) } // compiled, never run: not listed

func Example_emptyOutput() {
	// Output:
}
`,
		"x_test.go": `package fx_test

import (
	"fmt"
	"testing"

	"example.com/fx"
)

func TestX(t *testing.T) {}

func Example() {
	fmt.Println(fx.A())
	// Unordered output: a
}
`,
		"ignored_test.go":    "//go:build ignore\n\npackage fx\n\nimport \"testing\"\n\nfunc TestIgnored(t *testing.T) {}\n",
		"only_plan9_test.go": "package fx\n\nimport \"testing\"\n\nfunc TestPlan9(t *testing.T) {}\n",
	} {
		if name == "only_plan9_test.go" && runtime.GOOS == "plan9" {
			name = "only_windows_test.go"
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := TopLevelTests(dir)
	if err != nil {
		t.Fatalf("TopLevelTests: %v", err)
	}
	cmd := exec.Command("go", "test", "-list", ".", "-vet=off", ".")
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go test -list: %v\n%s", err, out)
	}
	var want []string
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if !strings.HasPrefix(l, "ok ") {
			want = append(want, l)
		}
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("TopLevelTests = %q\ngo test -list = %q", got, want)
	}
	if len(want) != 10 {
		t.Errorf("go test -list listed %d names, want 10 (the fixture's tests, benchmark, fuzz target and examples with output): %q", len(want), want)
	}
}

// The one-task check sees every top-level test: those of the files, and any
// the run reported that the reading missed.
func TestListTestsAddsWhatTheRunReported(t *testing.T) {
	dir := t.TempDir()
	for name, src := range map[string]string{
		"go.mod":    "module example.com/fx\n\ngo 1.22\n",
		"fx.go":     "package fx\n",
		"a_test.go": "package fx\n\nimport \"testing\"\n\nfunc TestA(t *testing.T) {}\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run := &TestRun{Ran: []string{"TestA", "TestA/sub", "TestFromTheRun"}}
	got, err := listTests(t.Context(), Go{}, Step{Name: "01-fx", Dir: dir}, run)
	if err != nil {
		t.Fatalf("listTests: %v", err)
	}
	if want := []string{"TestA", "TestFromTheRun"}; !slices.Equal(got, want) {
		t.Errorf("listTests = %q, want %q", got, want)
	}
	tasks := []Task{{N: 1, Patterns: []string{"TestA"}, Run: "TestA"}}
	if p := SelectionProblems(tasks, got); len(p) != 1 || !strings.Contains(p[0], "TestFromTheRun") {
		t.Errorf("SelectionProblems = %q, want one problem naming TestFromTheRun", p)
	}
}
