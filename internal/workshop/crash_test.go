package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/icecreamcorp/go-cancellation-workshop/internal/gotest"
	"github.com/icecreamcorp/go-cancellation-workshop/internal/workshop/course"
)

// A crash belongs to the task whose run selects the test it happened in:
// check shows it as that task's failure, with the task's command and hint.
func TestCheckRoutesACrash(t *testing.T) {
	t.Parallel()
	root := filepath.Join(t.TempDir(), "course")
	require.NoError(t, writeFixture(root), "writing the fixture")
	crash := "package calc\n\nfunc Add(a, b int) int { return a + b }\n\n" +
		"func Sub(a, b int) int {\n\tvar m map[int]int\n\tm[a] = b // panics\n\treturn 0\n}\n"
	require.NoError(t, os.WriteFile(filepath.Join(root, "01-solved", "calc.go"), []byte(crash), 0o644), "a Sub that panics")
	a, stdout, stderr := testApp(t, root, "")

	assert.Equal(t, exitRed, a.check(ctx(t), []string{"01"}), "check of a step whose test panics; stderr: %s", stderr)
	out := stdout.String()
	assert.Contains(t, out, "First failure — task 2: Subtract", "the panic in TestSub/… belongs to task 2, whose run selects it")
	assert.Contains(t, out, "panic: assignment to entry in nil map", "the crash itself")
	assert.Contains(t, out, "Run it alone:  cd 01-solved && go test -run 'TestSub' .", "task 2's command")
	assert.Contains(t, out, "Stuck?         go tool workshop hint 01 2", "task 2's hint")
}

// A panic, a synctest deadlock and a data race that happen during task 1's
// test, in code of task 2's file (course.yaml's files), are task 2's
// failure: check names it, with its command and its hint.
func TestCheckBlamesTheFile(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct{ b, test, want string }{
		"panic": {
			b:    "func B() int {\n\tvar m map[int]int\n\tm[1] = 1\n\treturn 0\n}\n",
			test: "func TestA(t *testing.T) { A() }\n",
			want: "panic: assignment to entry in nil map",
		},
		"deadlock": {
			b:    "func B() int {\n\tgo func() { <-make(chan int) }()\n\treturn 0\n}\n",
			test: "func TestA(t *testing.T) { synctest.Test(t, func(*testing.T) { A() }) }\n",
			want: "deadlock: main bubble goroutine has exited but blocked goroutines remain",
		},
		"race": {
			b:    "func B() int {\n\tn, done := 0, make(chan bool)\n\tgo func() { n++; done <- true }()\n\tn++\n\t<-done\n\treturn n\n}\n",
			test: "func TestA(t *testing.T) { A() }\n",
			want: "WARNING: DATA RACE",
		},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			root := filepath.Join(t.TempDir(), "course")
			files := map[string]string{
				"go.mod": "module example.com/blame\n\ngo 1.26\n",
				"course.yaml": "steps:\n  - dir: 01-work\n    title: \"01 — Work\"\n    tasks:\n" +
					"      - {task: 1, title: 'Start', files: [a.go], run: 'TestA', hints: hints/task-1.md}\n" +
					"      - {task: 2, title: 'Count', files: [b.go], run: 'TestB', hints: hints/task-2.md}\n",
				"01-work/README.md": "# 01 — Work\n\n## Tasks\n\n### Task 1: Start\n\n```\ngo test -run 'TestA' .\n```\n\n" +
					"### Task 2: Count\n\n```\ngo test -run 'TestB' .\n```\n",
				"01-work/a.go":            "package work\n\nfunc A() int { return B() }\n",
				"01-work/b.go":            "package work\n\nfunc C() int { return 1 }\n\n" + tc.b,
				"01-work/a_test.go":       "package work\n\nimport (\n\t\"testing\"\n\t\"testing/synctest\"\n)\n\nvar _ = synctest.Test\n\n" + tc.test,
				"01-work/b_test.go":       "package work\n\nimport \"testing\"\n\nfunc TestB(t *testing.T) {\n\tif C() != 1 {\n\t\tt.Error(\"C\")\n\t}\n}\n",
				"01-work/hints/task-1.md": "Start.\n",
				"01-work/hints/task-2.md": "Count.\n",
			}
			for f, content := range files {
				write(t, root, f, content)
			}
			a, stdout, stderr := testApp(t, root, "")
			code := a.check(ctx(t), []string{"01"})
			out := stdout.String()
			if name == "race" && strings.Contains(out, "the race detector is not available here") {
				t.Skipf("check ran without -race:\n%s", out)
			}
			assert.Equal(t, exitRed, code, "check; stderr: %s", stderr)
			assert.Contains(t, out, tc.want, "the report itself")
			assert.Contains(t, out, "First failure — task 2: Count", "task 2 owns b.go, where it happened")
			cmd := "go test -run 'TestB' ."
			if name == "race" {
				cmd = "go test -race -run 'TestB' ."
			}
			assert.Contains(t, out, "Run it alone:  cd 01-work && "+cmd, "task 2's command")
			assert.Contains(t, out, "Stuck?         go tool workshop hint 01 2", "task 2's hint")
		})
	}
}

// A task whose tests never started, because the binary crashed in another
// task's test first, is not shown failed.
func TestNotRun(t *testing.T) {
	t.Parallel()
	st := &course.StepStatus{Problem: "the tests crashed in TestB (panic: …)", CrashTask: 2, Run: &gotest.TestRun{Ran: []string{"TestA", "TestB"}}}
	v := &verdict{st: st}
	assert.False(t, v.notRun(course.TaskResult{N: 1, Tests: []string{"TestA"}}), "task 1's test ran")
	assert.False(t, v.notRun(course.TaskResult{N: 2, Tests: []string{"TestB"}}), "task 2 crashed")
	assert.True(t, v.notRun(course.TaskResult{N: 3, Tests: []string{"TestC"}}), "task 3's test never started")
	st.Problem = "the step does not build:\n…"
	assert.False(t, v.notRun(course.TaskResult{N: 3, Tests: []string{"TestC"}}), "a build failure is no crash")
}
