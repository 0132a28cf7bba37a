package solutions

// The workshop's integrity check (see README.md in this folder): for every
// step folder at the top of the module, the exercise starts red and its
// solution is green, with the same tests, and the README's tasks match the
// starter's TODOs.

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

const (
	stepGlob = "[0-9][0-9]-*"
	// starterBudget is how long a starter's tests may take to fail. The target
	// is about a second; the margin is for a busy machine.
	starterBudget = 10 * time.Second
	// starterTimeout stops a starter whose tests hang, so that the check can
	// say so instead of hanging too.
	starterTimeout = "60s"
	// solutionTimeout does the same for a solution's tests under -race.
	solutionTimeout = "5m"
	// commandTimeout bounds any go command the check runs.
	commandTimeout = 10 * time.Minute
)

func TestIntegrity(t *testing.T) {
	root := moduleRoot(t)
	steps, err := filepath.Glob(filepath.Join(root, stepGlob))
	require.NoError(t, err, "listing the step folders")
	var names []string
	for _, dir := range steps {
		if info, err := os.Stat(dir); err == nil && info.IsDir() {
			names = append(names, filepath.Base(dir))
		}
	}
	require.NotEmpty(t, names, "no step folder (%s) at the top of the module %s: the integrity check has nothing to prove", stepGlob, root)
	solved, err := filepath.Glob(filepath.Join(root, "solutions", stepGlob))
	require.NoError(t, err, "listing the solution folders")
	for _, dir := range solved {
		if info, err := os.Stat(filepath.Join(root, filepath.Base(dir))); err != nil || !info.IsDir() {
			t.Errorf("solutions/%s has no step folder %s at the top of the module: a solution without its exercise teaches nothing", filepath.Base(dir), filepath.Base(dir))
		}
	}
	t.Logf("steps: %s", strings.Join(names, ", "))

	for _, step := range names {
		t.Run(step, func(t *testing.T) {
			t.Parallel() // each step's go commands are independent of the others'
			checkStep(t, root, step)
		})
	}
}

// checkStep runs every check on one step, one subtest per check, the cheap
// ones first.
func checkStep(t *testing.T, root, step string) {
	stepDir := filepath.Join(root, step)
	solutionDir := filepath.Join(root, "solutions", step)
	if info, err := os.Stat(solutionDir); err != nil || !info.IsDir() {
		t.Fatalf("%s: no solution folder solutions/%s: every step has its finished version there", step, step)
	}

	t.Run("its test files are the solution's, byte for byte", func(t *testing.T) {
		problems, err := testFileProblems(stepDir, solutionDir)
		require.NoError(t, err, "%s: reading the test files", step)
		report(t, step, problems)
	})

	var tasks []task
	t.Run("its README's tasks match the starter's TODOs", func(t *testing.T) {
		readme, err := os.ReadFile(filepath.Join(stepDir, "README.md"))
		require.NoError(t, err, "%s: the step has no README.md to teach it", step)
		tasks, err = readmeTasks(string(readme))
		require.NoError(t, err, "%s: README.md has no tasks to check", step)
		todos, err := starterTODOs(stepDir)
		require.NoError(t, err, "%s: reading the starter's sources", step)
		report(t, step, append(taskProblems(tasks), todoProblems(todos, tasks)...))
		t.Logf("%s: %d tasks, %d TODO markers", step, len(tasks), len(todos))
	})

	t.Run("its solution has no TODO left", func(t *testing.T) {
		left, err := starterTODOs(solutionDir)
		require.NoError(t, err, "%s: reading the solution's sources", step)
		var problems []string
		for _, td := range left {
			problems = append(problems, fmt.Sprintf("solutions/%s/%s:%d: TODO(task %d) is still there: a solution does every task", step, td.File, td.Line, td.N))
		}
		report(t, step, problems)
	})

	if testing.Short() {
		t.Skipf("%s: -short skips building and running the starter and the solution; run without -short for the whole check", step)
	}

	t.Run("the starter builds and vets clean", func(t *testing.T) {
		if out, err := goCommand(t, root, "build", "-o", os.DevNull, "./"+step); err != nil {
			t.Fatalf("%s: the starter does not build (go build ./%s: %v) — a starter must compile:\n%s", step, step, err, indent(out))
		}
		if out, err := goCommand(t, root, "vet", "./"+step); err != nil {
			t.Fatalf("%s: go vet ./%s is not clean (%v):\n%s", step, step, err, indent(out))
		}
	})

	t.Run("the starter's tests fail by failing assertions, quickly", func(t *testing.T) {
		run, stderr := goTestJSON(t, root, "-count=1", "-timeout", starterTimeout, "./"+step)
		if err := starterProblem(run, starterBudget); err != nil {
			t.Fatalf("%s: go test ./%s: %v%s", step, step, err, quoteStderr(stderr))
		}
		t.Logf("%s: the starter's tests fail as they should: %d failing tests and subtests, in %.2fs (budget %v)",
			step, len(run.Failed), run.Elapsed, starterBudget)
	})

	var solution testRun
	t.Run("the solution passes the same tests under -race", func(t *testing.T) {
		solution = solutionRun(t, root, step)
		if problem := solutionProblem(solution); problem != "" {
			t.Fatalf("%s: go test -race ./solutions/%s: %s", step, step, problem)
		}
		t.Logf("%s: the solution passes %d tests and subtests in %.2fs under -race", step, len(solution.Ran), solution.Elapsed)
	})

	t.Run("every task's go test -run command selects a test", func(t *testing.T) {
		if len(tasks) == 0 {
			t.Skipf("%s: no task found in README.md (reported above), so no run command to check", step)
		}
		if len(solution.Ran) == 0 {
			t.Skipf("%s: no test of the solution ran, so there are no names to match the README's patterns against", step)
		}
		report(t, step, patternProblems(tasks, solution.Ran))
	})
}

// solutionRun runs the solution's tests with -race, or without it where the
// race detector is not available (it needs cgo, so a C compiler, on most
// systems) — saying so in the log.
func solutionRun(t *testing.T, root, step string) testRun {
	args := []string{"-race", "-count=1", "-timeout", solutionTimeout, "./solutions/" + step}
	run, stderr := goTestJSON(t, root, args...)
	if run.Result == "" && (strings.Contains(stderr, "-race requires cgo") || strings.Contains(stderr, "-race is not supported")) {
		t.Logf("%s: the race detector is not available here (%s); running the solution's tests without -race",
			step, strings.TrimSpace(stderr))
		run, stderr = goTestJSON(t, root, args[1:]...)
	}
	if run.Result == "" {
		run.Output = append(run.Output, strings.Split(strings.TrimSpace(stderr), "\n")...)
	}
	return run
}

// solutionProblem says why a solution's run is not green, or returns "".
func solutionProblem(run testRun) string {
	switch {
	case run.BuildFailed:
		return "the solution's tests do not build:\n" + indent(strings.TrimSpace(run.BuildOutput+"\n"+tail(run.Output, 25)))
	case run.Result == "pass":
		return ""
	case run.Result == "skip":
		return "the solution has no tests"
	case len(run.Failed) == 0:
		return fmt.Sprintf("the tests did not pass (result %q):\n%s", run.Result, indent(tail(run.Output, 40)))
	}
	return fmt.Sprintf("%d tests and subtests fail (%s):\n%s",
		len(run.Failed), strings.Join(run.Failed, ", "), indent(failureReport(run, 40)))
}

// report fails t with each problem, prefixed by the step's name.
func report(t *testing.T, step string, problems []string) {
	t.Helper()
	for _, p := range problems {
		t.Errorf("%s: %s", step, p)
	}
}

// moduleRoot is the folder of the module's go.mod, as `go env GOMOD` says.
func moduleRoot(t *testing.T) string {
	t.Helper()
	out, err := goCommand(t, ".", "env", "GOMOD")
	require.NoError(t, err, "go env GOMOD: %s", out)
	gomod := strings.TrimSpace(out)
	require.True(t, gomod != "" && gomod != os.DevNull, "go env GOMOD found no go.mod: the check must run inside the workshop's module")
	return filepath.Dir(gomod)
}

// goCommand runs the go command in dir and returns its combined output.
func goCommand(t *testing.T, dir string, args ...string) (string, error) {
	t.Helper()
	stdout, stderr, err := runGo(t, dir, args...)
	return strings.TrimSpace(stdout + stderr), err
}

// goTestJSON runs `go test -json args…` in dir and reads its events. A failing
// test makes go test exit 1: the events, not the exit status, say what
// happened.
func goTestJSON(t *testing.T, dir string, args ...string) (testRun, string) {
	t.Helper()
	stdout, stderr, _ := runGo(t, dir, append([]string{"test", "-json"}, args...)...)
	return parseTestJSON(strings.NewReader(stdout)), stderr
}

func runGo(t *testing.T, dir string, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), commandTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = dir
	cmd.WaitDelay = 10 * time.Second // the test binary may hold the pipes open after go is killed
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	start := time.Now()
	err = cmd.Run()
	if ctx.Err() != nil {
		err = fmt.Errorf("go %s: gave up after %v: %w", strings.Join(args, " "), commandTimeout, ctx.Err())
	}
	t.Logf("go %s (%.1fs)", strings.Join(args, " "), time.Since(start).Seconds())
	return out.String(), errOut.String(), err
}

func quoteStderr(stderr string) string {
	if s := strings.TrimSpace(stderr); s != "" {
		return "\ngo test's stderr:\n" + indent(s)
	}
	return ""
}
