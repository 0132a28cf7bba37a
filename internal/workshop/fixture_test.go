package main

// A fixture course for the runner's tests: a module of its own with a step
// the learner has solved (01-solved: its tests pass; task 2's test runs a
// subtest) and one not started (02-unsolved: its stub returns the zero
// value). Built once per test binary.

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

var fixtureFiles = map[string]string{
	"go.mod":   "module example.com/fixture\n\ngo 1.26\n",
	"notes.md": "Outside every step: reset must never touch this.\n",
	"course.yaml": "steps:\n" +
		"  - dir: 01-solved\n    title: \"01 — Adding\"\n    tasks:\n" +
		"      - {task: 1, title: 'Add two numbers', files: [], run: 'TestAdd', hints: hints/task-1.md}\n" +
		"      - {task: 2, title: 'Subtract', files: [], run: 'TestSub', hints: hints/task-2.md}\n" +
		"  - dir: 02-unsolved\n    title: \"02 — Doubling\"\n    tasks:\n" +
		"      - {task: 1, title: 'Double a number', files: [double.go], run: 'TestDouble', hints: hints/task-1.md}\n",

	"01-solved/README.md": "# 01 — Adding\n\n## Tasks\n\n" +
		"### Task 1: Add two numbers\n\nMake `Add` add.\n\n```\ngo test -run 'TestAdd' .\n```\n\n" +
		"Stuck? `go tool workshop hint 01 1`\n\n" +
		"### Task 2: Subtract\n\nMake `Sub` subtract.\n\n```\ngo test -run 'TestSub' .\n```\n\n" +
		"Stuck? `go tool workshop hint 01 2`\n\n## What you learned\n\nArithmetic.\n",
	"01-solved/calc.go":           "package calc\n\nfunc Add(a, b int) int { return a + b }\n\nfunc Sub(a, b int) int { return a - b }\n",
	"01-solved/calc_test.go":      calcTest,
	"01-solved/hints/task-1.md":   "The gentlest hint: read the test.\n\n---\n\nThe last hint: use the + operator.\n",
	"01-solved/hints/task-2.md":   "Use the - operator.\n",
	"solutions/01-solved/calc.go": "package calc\n\nfunc Add(a, b int) int { return a + b }\n\nfunc Sub(a, b int) int { return a - b }\n",

	"02-unsolved/README.md": "# 02 — Doubling\n\n## Tasks\n\n" +
		"### Task 1: Double a number\n\nMake `Double` return twice its argument.\n\n```\ngo test -run 'TestDouble' .\n```\n\n" +
		"Stuck? `go tool workshop hint 02 1`\n",
	"02-unsolved/double.go":           "package double\n\n// TODO(task 1): return twice n.\nfunc Double(n int) int { return 0 }\n",
	"02-unsolved/double_test.go":      doubleTest,
	"02-unsolved/hints/task-1.md":     "Multiply.\n",
	"solutions/02-unsolved/double.go": "package double\n\nfunc Double(n int) int { return 2 * n }\n",
	"solutions/01-solved/MISTAKES.md": "# Mistakes: 01-solved\n\n## Task 1: Add two numbers\n\n" +
		"### Subtracts\nThe sign is wrong.\n\n```diff\n--- calc.go\n@@\n-func Add(a, b int) int { return a + b }\n+func Add(a, b int) int { return a - b }\n```\n",
	"solutions/02-unsolved/MISTAKES.md": "# Mistakes: 02-unsolved\n\n## Task 1: Double a number\n\n" +
		"### Adds two\n\n```diff\n--- double.go\n@@\n-func Double(n int) int { return 2 * n }\n+func Double(n int) int { return n + 2 }\n```\n",
}

const calcTest = `package calc

import "testing"

func TestAdd(t *testing.T) {
	if got := Add(2, 3); got != 5 {
		t.Errorf("Add(2, 3) = %d; want 5 (task 1)", got)
	}
}

func TestSub(t *testing.T) {
	t.Run("five minus three", func(t *testing.T) {
		if got := Sub(5, 3); got != 2 {
			t.Errorf("Sub(5, 3) = %d; want 2 (task 2)", got)
		}
	})
}
`

const doubleTest = `package double

import "testing"

func TestDouble(t *testing.T) {
	if got := Double(21); got != 42 {
		t.Errorf("Double(21) = %d; want 42 (task 1: return 2 * n)", got)
	}
}
`

var (
	fixtureOnce sync.Once
	fixtureDir  string
	fixtureErr  error
)

// TestMain removes the fixture, and proves that no test left a goroutine
// behind (the tests run in parallel, so leakcheck.Check, test by test,
// cannot tell whose a goroutine is: this checks them all at the end).
func TestMain(m *testing.M) {
	code := m.Run()
	if fixtureDir != "" {
		os.RemoveAll(fixtureDir)
	}
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintf(os.Stderr, "goroutines still running after the tests — a command was not waited for:\n%v\n", err)
			code = 1
		}
	}
	os.Exit(code)
}

// fixture returns the path of a pristine copy of the fixture course. Tests
// that change files get a copy of their own (copyFixture).
func fixture(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("the go command is not on the PATH")
	}
	fixtureOnce.Do(func() {
		fixtureDir, fixtureErr = os.MkdirTemp("", "workshop-fixture-")
		if fixtureErr == nil {
			fixtureErr = writeFixture(filepath.Join(fixtureDir, "course"))
		}
	})
	require.NoError(t, fixtureErr, "writing the fixture course")
	return filepath.Join(fixtureDir, "course")
}

func writeFixture(dir string) error {
	for name, content := range fixtureFiles {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// testApp is an app on a course folder, with a cache folder of its own and
// the given input, and buffers for its output.
func testApp(t *testing.T, root, stdin string) (*app, *bytes.Buffer, *bytes.Buffer) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	a, err := newAppAt(root, t.TempDir(), strings.NewReader(stdin), &stdout, &stderr)
	require.NoError(t, err, "newAppAt(%s)", root)
	return a, &stdout, &stderr
}

func ctx(t *testing.T) context.Context { return t.Context() }
