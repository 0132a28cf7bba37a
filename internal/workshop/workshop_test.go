package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/icecreamcorp/go-cancellation-workshop/internal/workshop/course"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestOverview(t *testing.T) {
	t.Parallel()
	a, stdout, stderr := testApp(t, fixture(t), "")

	code := a.overview(ctx(t), nil)
	require.Equal(t, exitOK, code, "overview's exit code; stderr: %s", stderr)
	out := stdout.String()
	assert.Regexp(t, `01-solved\s+\[█+\] 2/2  ✓1 ✓2`, out, "the solved step: both tasks ✓")
	assert.Regexp(t, `02-unsolved\s+\[░+\] 0/1  ✗1`, out, "the unsolved step: its task ✗")
	assert.Contains(t, out, "2 of 3 tasks", "the progress over every step")
	assert.Contains(t, out, "Next: 02-unsolved", "the next task is in the first step not done")
	assert.Contains(t, out, "Make `Double` return twice its argument.", "the next task's README section")
	assert.Contains(t, out, "cd 02-unsolved && go test -run 'TestDouble' .", "the command that checks it")
	assert.Contains(t, out, "go tool workshop hint 02 1", "how to ask for a hint")
	assert.NotContains(t, out, "Multiply", "the overview never shows a hint")
	assert.Contains(t, stderr.String(), "running the tests of 01-solved, 02-unsolved", "the first overview runs the tests")
	assert.Contains(t, stderr.String(), "first run: go test builds every step's tests, which compiles the standard library's HTTP stack once",
		"the first run says why it takes long, before it starts")
	assert.Less(t, strings.Index(out, "01-solved"), strings.Index(out, "02-unsolved"), "the steps' lines in order")

	t.Run("a second overview with nothing changed comes from the cache, at once", func(t *testing.T) {
		stdout.Reset()
		stderr.Reset()
		assert.Equal(t, exitOK, a.overview(ctx(t), nil), "overview's exit code")
		assert.Empty(t, stderr.String(), "no test runs when nothing changed: the results come from the cache")
		assert.Contains(t, stdout.String(), "2 of 3 tasks", "the same progress, from the cache")
	})

	t.Run("arguments are a usage error", func(t *testing.T) {
		assert.Equal(t, exitUsage, a.overview(ctx(t), []string{"05"}), "overview with an argument")
	})
}

func TestCheck(t *testing.T) {
	t.Parallel()
	a, stdout, stderr := testApp(t, fixture(t), "")

	assert.Equal(t, exitRed, a.check(ctx(t), []string{"2"}), "check of the unsolved step; stderr: %s", stderr)
	out := stdout.String()
	assert.Contains(t, out, "go vet ./02-unsolved", "check runs go vet first")
	assert.Contains(t, out, "✗ task 1  Double a number", "the task, red")
	assert.Contains(t, out, "First failure — task 1: Double a number", "the first failure names its task")
	assert.Contains(t, out, "Double(21) = 0; want 42 (task 1: return 2 * n)", "the failure's own message")
	assert.NotContains(t, out, "=== RUN", "no go test chatter")

	stdout.Reset()
	assert.Equal(t, exitOK, a.check(ctx(t), []string{"01-solved"}), "check of the solved step: %s", stdout)
	assert.Contains(t, stdout.String(), "01-solved is done", "a green step says so")

	assert.Equal(t, exitUsage, a.check(ctx(t), []string{"07"}), "check of a step that does not exist")
	assert.Contains(t, stderr.String(), `no step "07": the steps are 01-solved, 02-unsolved`, "the usage error names the steps")

	t.Run("from inside a step's folder, check with no step checks that step, and its commands need no cd", func(t *testing.T) {
		stdout.Reset()
		a.wd = filepath.Join(a.root, "02-unsolved")
		defer func() { a.wd = a.root }()
		assert.Equal(t, exitRed, a.check(ctx(t), nil), "check run in 02-unsolved/")
		out := stdout.String()
		assert.Contains(t, out, "First failure — task 1: Double a number", "the step of the folder is checked")
		assert.Contains(t, out, "Run it alone:  go test -run 'TestDouble' .", "the command, without a cd into the folder it runs in")
	})
}

func TestWithRace(t *testing.T) {
	t.Parallel()
	for cmd, want := range map[string]string{
		"go test -run 'TestA' .":             "go test -race -run 'TestA' .",
		"go test -race -run 'TestA|TestB' .": "go test -race -run 'TestA|TestB' .",
		"go test -run 'TestA' -race .":       "go test -run 'TestA' -race .",
		"go run .":                           "go run .",
	} {
		assert.Equal(t, want, withRace(cmd), "withRace(%q): -race once, only for go test", cmd)
	}
}

func TestOverviewVet(t *testing.T) {
	t.Parallel()
	root := filepath.Join(t.TempDir(), "course")
	require.NoError(t, os.CopyFS(root, os.DirFS(fixture(t))), "copying the fixture")
	// The tests pass, but the cancel is lost: only go vet says so.
	write(t, root, "02-unsolved/double.go", "package double\n\nimport \"context\"\n\n"+
		"func Double(n int) int {\n\tctx, _ := context.WithCancel(context.Background())\n\t_ = ctx\n\treturn 2 * n\n}\n")
	a, stdout, stderr := testApp(t, root, "")
	require.Equal(t, exitOK, a.overview(ctx(t), nil), "overview; stderr: %s", stderr)
	out := stdout.String()
	assert.Regexp(t, `02-unsolved\s+\[█+\] 1/1  ✓1  — tests ✓, vet ✗: go tool workshop check 02`, out,
		"a step whose tests pass and whose vet fails says so on its line")
	assert.Contains(t, out, "Next: 02-unsolved — every task's tests pass, but go vet does not", "the step is not done: it is next")
	assert.Contains(t, out, "cancel", "vet's complaint is shown")
	assert.NotContains(t, out, "Every task of every step is done", "a step vet fails is not done")
	assert.Contains(t, stderr.String(), "go vet ./02-unsolved", "vet ran for the step whose tasks pass")

	stdout.Reset()
	stderr.Reset()
	require.Equal(t, exitOK, a.overview(ctx(t), nil), "the second overview")
	assert.Empty(t, stderr.String(), "with nothing changed, vet's verdict comes from the cache too")
	assert.Contains(t, stdout.String(), "tests ✓, vet ✗", "the same verdict, from the cache")

	assert.Equal(t, exitRed, a.check(ctx(t), []string{"02"}), "check 02 fails on vet")
	assert.Contains(t, stdout.String(), "✓ task 1  Double a number", "check shows the task's tests pass")
	assert.Contains(t, stdout.String(), "✗ every task's tests pass, but go vet does not (tests ✓, vet ✗)", "and that vet fails")
}

// A finding of go vet that go test's own vet checks too (printf) must not
// turn a step whose tests pass into a build failure of every task: the
// overview, check and hint show tests ✓ and the finding.
func TestPrintfFinding(t *testing.T) {
	t.Parallel()
	root := filepath.Join(t.TempDir(), "course")
	require.NoError(t, os.CopyFS(root, os.DirFS(fixture(t))), "copying the fixture")
	write(t, root, "02-unsolved/double.go", "package double\n\nimport \"fmt\"\n\n"+
		"func Double(n int) int {\n\t_ = fmt.Sprintf(\"%d\", \"n\")\n\treturn 2 * n\n}\n")
	a, stdout, stderr := testApp(t, root, "")
	require.Equal(t, exitOK, a.overview(ctx(t), nil), "overview; stderr: %s", stderr)
	assert.Regexp(t, `02-unsolved\s+\[█+\] 1/1  ✓1  — tests ✓, vet ✗`, stdout.String(), "the task's tests pass; vet's finding is apart")

	stdout.Reset()
	assert.Equal(t, exitOK, a.hint(ctx(t), []string{"02"}), "hint 02")
	assert.Contains(t, stdout.String(), "every task's tests pass, but go vet does not", "hint shows vet's finding, not task 1's hint")
	assert.Contains(t, stdout.String(), "Sprintf format %d has arg", "the printf finding itself")

	stdout.Reset()
	assert.Equal(t, exitRed, a.check(ctx(t), []string{"02"}), "check 02")
	out := stdout.String()
	assert.Contains(t, out, "✓ task 1  Double a number", "check: the task's tests pass")
	assert.Contains(t, out, "Sprintf format %d has arg", "check: vet's finding")
	assert.Contains(t, out, "Run it alone:  cd 02-unsolved && go vet .", "with the command that shows it alone")

	stdout.Reset()
	a.wd = filepath.Join(root, "02-unsolved") // the learner runs check inside the step
	assert.Equal(t, exitRed, a.check(ctx(t), []string{"02"}), "check 02, in 02-unsolved")
	assert.Regexp(t, `(?m)^  double\.go:6:\d+: .*Sprintf format %d`, stdout.String(), "vet's path, from the folder the learner is in")
}

func write(t *testing.T, root, name, content string) {
	t.Helper()
	path := filepath.Join(root, filepath.FromSlash(name))
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755), "mkdir for %s", name)
	require.NoError(t, os.WriteFile(path, []byte(content), 0o644), "writing %s", name)
}

func read(t *testing.T, root, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(name)))
	if os.IsNotExist(err) {
		return "(missing)"
	}
	require.NoError(t, err, "reading %s", name)
	return string(b)
}

func TestRunUsage(t *testing.T) {
	t.Parallel()
	var stdout, stderr strings.Builder
	assert.Equal(t, exitUsage, run(ctx(t), []string{"frobnicate"}, &stdout, &stderr), "an unknown command")
	assert.Contains(t, stderr.String(), `unknown command "frobnicate"`, "says which")
	assert.Contains(t, stderr.String(), "go tool workshop check [STEP]", "and shows the usage")
	assert.Equal(t, exitOK, run(ctx(t), []string{"help"}, &stdout, &stderr), "help")

	stderr.Reset()
	assert.Equal(t, exitUsage, run(ctx(t), []string{"05"}, &stdout, &stderr), "a step where a command goes")
	assert.Contains(t, stderr.String(), `"05" is a step, not a command: go tool workshop check 05`, "says which command takes it")

	stdout.Reset()
	assert.Equal(t, exitOK, run(ctx(t), []string{"check", "-h"}, &stdout, &stderr), "check -h")
	assert.Contains(t, stdout.String(), "go tool workshop check [STEP]", "-h after a command shows the usage")
}

func TestOverviewAfterAChange(t *testing.T) {
	t.Parallel()
	root := filepath.Join(t.TempDir(), "course")
	require.NoError(t, os.CopyFS(root, os.DirFS(fixture(t))), "copying the fixture")
	a, stdout, stderr := testApp(t, root, "")
	require.Equal(t, exitOK, a.overview(ctx(t), nil), "the first overview; stderr: %s", stderr)

	write(t, root, "02-unsolved/double.go", "package double\n\nfunc Double(n int) int { return 2 * n }\n")
	stdout.Reset()
	stderr.Reset()
	require.Equal(t, exitOK, a.overview(ctx(t), nil), "the overview after solving 02; stderr: %s", stderr)
	assert.Contains(t, stderr.String(), "running the tests of 02-unsolved (", "only the step that changed runs again")
	assert.NotContains(t, stderr.String(), "01-solved", "the step that did not change comes from the cache")
	assert.Contains(t, stdout.String(), "3 of 3 tasks", "the progress counts the task just done")
	assert.Contains(t, stdout.String(), "Every task of every step is done", "and the course is finished")
}

// syncBuffer is a buffer that watch can write while the test reads it.
type syncBuffer struct {
	mu  sync.Mutex
	buf strings.Builder
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func TestWatch(t *testing.T) {
	t.Parallel()
	root := filepath.Join(t.TempDir(), "course")
	require.NoError(t, os.CopyFS(root, os.DirFS(fixture(t))), "copying the fixture")
	var out syncBuffer
	a, err := newAppAt(root, t.TempDir(), strings.NewReader(""), &out, &out)
	require.NoError(t, err, "newAppAt")

	wctx, stop := context.WithCancel(ctx(t))
	defer stop()
	done := make(chan int, 1)
	go func() { done <- a.watch(wctx, []string{"02"}) }()

	// waitFor polls the output, boundedly: each check runs go vet and go test.
	waitFor := func(what string, n int) {
		t.Helper()
		deadline := time.Now().Add(2 * time.Minute)
		for strings.Count(out.String(), what) < n {
			if time.Now().After(deadline) {
				require.FailNow(t, "watch did not print "+what, "waited 2 minutes for %q (×%d); output so far:\n%s", what, n, out.String())
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	waitFor("Watching 02-unsolved", 1)
	assert.Contains(t, out.String(), "✗ task 1", "the first check: red")

	write(t, root, "02-unsolved/double.go", "package double\n\nfunc Double(n int) int { return 2 * n }\n")
	waitFor(": 02-unsolved changed — running task 1's tests alone, without -race… ────", 1)
	waitFor("Watching 02-unsolved", 2)
	assert.Contains(t, out.String(), "Quick run (task 1 alone, without -race): go vet and every test with -race are running, and may change it\n\n  ✓ task 1  Double a number", "the save runs the task in progress's tests first")
	assert.Contains(t, out.String(), "──── run 2 at ", "the run's number and time")
	assert.Contains(t, out.String(), "✓ 02-unsolved is done", "the check after the save: green")

	stop()
	select {
	case code := <-done:
		assert.Equal(t, exitOK, code, "watch's exit code after Ctrl-C")
	case <-time.After(time.Minute):
		require.FailNow(t, "watch did not return within a minute of its context ending")
	}
}

func TestStepFolderYouAreIn(t *testing.T) {
	t.Parallel()
	a, _, _ := testApp(t, fixture(t), "")
	unsolved, err := a.stepArg(ctx(t), "02")
	require.NoError(t, err, "stepArg(02)")
	for _, tc := range []struct {
		wd, inStep, cd string
	}{
		{wd: a.root, inStep: "", cd: "cd 02-unsolved && "},
		{wd: filepath.Join(a.root, "02-unsolved"), inStep: "02-unsolved", cd: ""},
		{wd: filepath.Join(a.root, "02-unsolved", "hints"), inStep: "02-unsolved", cd: "cd .. && "},
		{wd: filepath.Join(a.root, "01-solved"), inStep: "01-solved", cd: "cd " + filepath.Join("..", "02-unsolved") + " && "},
		{wd: filepath.Join(a.root, "solutions", "02-unsolved"), inStep: "", cd: "cd " + filepath.Join("..", "..", "02-unsolved") + " && "},
	} {
		a.wd = tc.wd
		name := ""
		if i := a.inStep(); i >= 0 {
			name = a.steps[i].Name
		}
		assert.Equal(t, tc.inStep, name, "inStep() started in %s", tc.wd)
		assert.Equal(t, tc.cd+"go test .", a.command(unsolved, "go test ."), "command(02-unsolved, go test .) started in %s", tc.wd)
	}

	for wd, arg := range map[string]string{
		filepath.Join(a.root, "02-unsolved"):              ".",
		filepath.Join(a.root, "01-solved"):                "../02-unsolved",
		filepath.Join(a.root, "solutions", "02-unsolved"): filepath.Join("..", "..", "02-unsolved"),
	} {
		a.wd = wd
		step, err := a.stepArg(ctx(t), arg)
		assert.NoError(t, err, "stepArg(%q) started in %s", arg, wd)
		assert.Equal(t, "02-unsolved", step.Name, "stepArg(%q) started in %s: a path from where the runner started", arg, wd)
	}
	a.wd = a.root
	assert.Equal(t, exitUsage, a.check(ctx(t), []string{"-race"}), "check -race: check takes no flags")
}

func TestCommandForTheShell(t *testing.T) {
	t.Parallel()
	a, _, _ := testApp(t, fixture(t), "")
	unsolved, err := a.stepArg(ctx(t), "02")
	require.NoError(t, err, "stepArg(02)")
	a.windows = false
	assert.Equal(t, "cd 02-unsolved && go test -run 'TestA|TestB' .", a.command(unsolved, "go test -run 'TestA|TestB' ."), "a Unix shell takes the README's command as it is")
	a.windows = true
	assert.Equal(t, `go -C 02-unsolved test -run "TestA|TestB" .`, a.command(unsolved, "go test -run 'TestA|TestB' ."),
		"on Windows, double quotes (cmd.exe would pass single quotes on as part of the pattern), and go -C rather than cd and && (Windows PowerShell 5.1 has no &&)")
	a.wd = unsolved.Dir
	assert.Equal(t, `go test -run "TestA|TestB" .`, a.command(unsolved, "go test -run 'TestA|TestB' ."), "on Windows, in the step's folder")

	odd := course.Step{Name: "02-unsolved", Dir: filepath.Join(string(filepath.Separator)+"x", "it's my course", "02-unsolved")}
	a.wd = string(filepath.Separator) + "x"
	want := filepath.Join("it's my course", "02-unsolved")
	a.windows = false
	assert.Equal(t, "cd 'it'\\''s my course"+string(filepath.Separator)+"02-unsolved' && go test .", a.command(odd, "go test ."), "a folder that is not plain, single-quoted for a Unix shell")
	a.windows = true
	assert.Equal(t, `go -C "`+want+`" test .`, a.command(odd, "go test ."), "a folder that is not plain, double-quoted on Windows")
}

// TestOverviewManifestFixed: while course.yaml is broken, every step's
// result is that error; fixing it changes the overview's answer at once,
// though no file of a step changed (course.yaml is in the cache's key).
func TestOverviewManifestFixed(t *testing.T) {
	t.Parallel()
	root := filepath.Join(t.TempDir(), "course")
	require.NoError(t, os.CopyFS(root, os.DirFS(fixture(t))), "copying the fixture")
	a, stdout, stderr := testApp(t, root, "")
	write(t, root, "course.yaml", "steps: [\n")
	require.Equal(t, exitOK, a.overview(ctx(t), nil), "overview with course.yaml broken; stderr: %s", stderr)
	assert.Regexp(t, `01-solved\s+\[░+\] 0/0`, stdout.String(), "with course.yaml broken, step 01 has no tasks")

	write(t, root, "course.yaml", fixtureFiles["course.yaml"])
	stdout.Reset()
	require.Equal(t, exitOK, a.overview(ctx(t), nil), "overview with course.yaml fixed; stderr: %s", stderr)
	assert.Regexp(t, `01-solved\s+\[█+\] 2/2  ✓1 ✓2`, stdout.String(), "with course.yaml fixed, step 01's tasks at once, not the cached error")
}
