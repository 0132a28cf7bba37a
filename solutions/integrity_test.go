package solutions

// The workshop's integrity check (see README.md in this folder): for every
// step folder at the top of the module, the exercise starts red, fairly, and
// its README's tasks, TODOs, hints and mistake catalog agree with the course
// manifest (TestIntegrity); and every solution passes its step's tests
// (TestSolutions).

import (
	"cmp"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/icecreamcorp/go-cancellation-workshop/internal/gotest"
	"github.com/icecreamcorp/go-cancellation-workshop/internal/workshop/course"

	// Build order, not code. go test ./solutions/... starts these tests as
	// soon as their binary links, and they then run a go test of their own
	// on every starter and every solution. Were this binary free of what the
	// steps' tests import, that inner go test would compile the HTTP stack and the test
	// kit a second time, at the same moment as the outer one: measured from
	// an empty build cache, net/http, crypto/tls, net, net/netip, log/slog
	// and runtime/cgo compiled twice (33 s of CPU more on a loaded 2-core
	// machine). Importing them here makes the outer go test compile them
	// first.
	_ "net/http/httptest"

	_ "github.com/icecreamcorp/go-cancellation-workshop/internal/fakestock"
	_ "github.com/icecreamcorp/go-cancellation-workshop/internal/leakcheck"
	_ "github.com/icecreamcorp/go-cancellation-workshop/internal/memnet"
	_ "github.com/icecreamcorp/go-cancellation-workshop/internal/menutest"
	_ "github.com/icecreamcorp/go-cancellation-workshop/internal/runtest"
)

// moduleRoot is the module's root, or skips the test when there is no go
// command to run there.
func moduleRoot(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("the go command is not on the PATH: the integrity check runs go test on every step")
	}
	wd, err := os.Getwd()
	if err != nil {
		t.Fatalf("finding the working folder: %v", err)
	}
	root, err := gotest.ModuleRoot(wd)
	if err != nil {
		t.Fatalf("finding the module's root from %s: %v", wd, err)
	}
	return root
}

// byPackage maps the runs of a go test -json by their package's import path.
func byPackage(runs []*gotest.TestRun) map[string]*gotest.TestRun {
	m := map[string]*gotest.TestRun{}
	for _, r := range runs {
		m[r.Package] = r
	}
	return m
}

// logGo logs each go command the check runs, and how long it took.
func logGo(t *testing.T, root string) gotest.Go {
	return gotest.Go{Dir: root, Log: func(cmd string, took time.Duration) { t.Logf("%s (%.1fs)", cmd, took.Seconds()) }}
}

// TestSolutions runs every step's tests on its solution: the solution's
// files put over the step's with go test -overlay, in one go test of every
// step, with -race when this binary is built with -race (raceBuilt). A
// failing test fails TestSolutions/<step>/<test>, with its output.
func TestSolutions(t *testing.T) {
	t.Parallel()
	root := moduleRoot(t)
	steps, err := course.Steps(root)
	if err != nil {
		t.Fatalf("listing the steps: %v", err)
	}
	modPath, err := gotest.ModulePath(root)
	if err != nil {
		t.Fatal(err)
	}
	overlay := filepath.Join(t.TempDir(), "overlay.json")
	if err := course.WriteSolutionOverlay(root, steps, overlay); err != nil {
		t.Fatalf("writing the solutions' overlay: %v", err)
	}
	args := []string{"-count=1", "-timeout=5m", "-overlay=" + overlay}
	if raceBuilt {
		args = append(args, "-race")
	}
	if testing.Short() {
		args = append(args, "-short")
	}
	for _, s := range steps {
		args = append(args, "./"+s.Name)
	}
	out, stderr := logGo(t, root).TestJSON(t.Context(), nil, args...)
	runs := byPackage(out)
	for _, step := range steps {
		t.Run(step.Name, func(t *testing.T) {
			run := runs[modPath+"/"+step.Name]
			switch {
			case run == nil:
				t.Fatalf("solutions/%s: no result from go test: %s", step.Name, stderr)
			case len(run.Failed) == 0 && run.Result != "pass":
				// No test failed, yet the run did not pass: a build error, a
				// crash outside any test, no tests at all.
				p := course.RunProblem(run, stderr)
				if p == "" {
					p = fmt.Sprintf("go test says %q, though no test failed:\n%s", run.Result, strings.Join(run.Output[max(0, len(run.Output)-40):], "\n"))
				}
				t.Fatalf("solutions/%s: %s", step.Name, p)
			}
			for _, name := range run.Failed {
				if slices.ContainsFunc(run.Failed, func(sub string) bool { return strings.HasPrefix(sub, name+"/") }) {
					continue // a subtest of it failed: that one says why
				}
				var out []string
				for _, l := range run.ByTest[name] {
					if l := strings.TrimSpace(l); !strings.HasPrefix(l, "=== ") && !strings.HasPrefix(l, "--- ") {
						out = append(out, l)
					}
				}
				t.Run(name, func(t *testing.T) {
					t.Errorf("solutions/%s: %s fails on the solution:\n%s", step.Name, name, strings.Join(out, "\n"))
				})
			}
			t.Logf("solutions/%s: %d tests and subtests pass (%.2fs)", step.Name, len(run.Ran)-len(run.Failed), run.Elapsed)
		})
	}
}

var solutionOverlay = flag.String("solution-overlay", "", "TestSolutionOverlay: write the overlay that puts every solution over its step to this file (an absolute path)")

// TestSolutionOverlay writes, when asked, the overlay TestSolutions runs the
// steps' tests with, for go test -overlay FILE ./NN-… by hand; CI builds
// the steps' test binaries for Windows and macOS with it:
//
//	go test ./solutions -run '^TestSolutionOverlay$' -args -solution-overlay "$PWD/overlay.json"
func TestSolutionOverlay(t *testing.T) {
	path := *solutionOverlay
	switch {
	case path == "":
		t.Skip("writes the solutions' overlay only when asked: -args -solution-overlay FILE")
	case !filepath.IsAbs(path):
		t.Fatalf("-solution-overlay %s: give an absolute path (go test runs this test in solutions/)", path)
	}
	root := moduleRoot(t)
	steps, err := course.Steps(root)
	if err != nil {
		t.Fatalf("listing the steps: %v", err)
	}
	if err := course.WriteSolutionOverlay(root, steps, path); err != nil {
		t.Fatalf("writing the solutions' overlay: %v", err)
	}
}

const (
	// starterBudget is how long a starter's tests may take to fail. The
	// target is about a second; the margin is for a busy machine.
	starterBudget = 10 * time.Second
	// starterTimeout stops a starter whose tests hang, so that the check
	// can say so instead of hanging too.
	starterTimeout = "60s"
)

// TestIntegrity proves every step a fair exercise that agrees with the
// course manifest: a subtest per step and check. The checks of text and
// files take milliseconds; those of the starter's run come from one go
// test of every starter (none under -short).
func TestIntegrity(t *testing.T) {
	t.Parallel()
	root := moduleRoot(t)
	steps, err := course.Steps(root)
	if err != nil {
		t.Fatalf("listing the steps: %v", err)
	}
	if len(steps) == 0 {
		t.Fatalf("no step folder (%s) at the top of the module %s: the integrity check has nothing to prove", course.StepGlob, root)
	}
	solved, _ := filepath.Glob(filepath.Join(root, "solutions", course.StepGlob)) // the pattern is good
	for _, dir := range solved {
		if !isDir(filepath.Join(root, filepath.Base(dir))) {
			t.Errorf("solutions/%s has no step folder %s at the top of the module: a solution without its exercise teaches nothing", filepath.Base(dir), filepath.Base(dir))
		}
	}
	m, err := course.ReadManifest(root)
	if err != nil {
		t.Error(err)
		m = &course.Manifest{}
	}
	for _, p := range append(manifestProblems(m), folderProblems(m, steps)...) {
		t.Error(p)
	}

	// One go test over every starter with a solution: it builds them, vets
	// them (with the analyzers go test runs, its work shared with the outer
	// go test; CI's go vet ./... runs every analyzer) and runs their tests.
	// -p: a starter's tests mostly wait (for a deadline, a socket) rather
	// than compute, so run every starter's binary at once, not GOMAXPROCS
	// at a time.
	modPath, err := gotest.ModulePath(root)
	if err != nil {
		t.Fatal(err)
	}
	var pkgs []string
	for _, step := range steps {
		if _, ok := m.Step(step.Name); ok && isDir(step.SolutionDir(root)) {
			pkgs = append(pkgs, "./"+step.Name)
		}
	}
	var runs map[string]*gotest.TestRun // by import path; nil: the starters were not run (-short)
	var stderr string
	if !testing.Short() && len(pkgs) > 0 { // else every step lacks its solution, or its manifest entry
		parallel := fmt.Sprintf("-p=%d", max(runtime.GOMAXPROCS(0), min(len(pkgs), 8)))
		var out []*gotest.TestRun
		out, stderr = logGo(t, root).TestJSON(t.Context(), nil, append([]string{"-count=1", parallel, "-timeout", starterTimeout}, pkgs...)...)
		runs = byPackage(out)
	}
	for _, step := range steps {
		ms, ok := m.Step(step.Name)
		if !ok {
			continue // folderProblems said so
		}
		var run *gotest.TestRun
		if runs != nil {
			run = cmp.Or(runs[modPath+"/"+step.Name], &gotest.TestRun{}) // none: RunProblem says go test gave no result
		}
		t.Run(step.Name, func(t *testing.T) { checkStep(t, root, step, ms, run, stderr) })
	}
}

// checkStep runs the checks of one step, each a subtest named for what it
// proves. run is its starter's run (nil under -short); stderr is go test's
// own complaints.
func checkStep(t *testing.T, root string, step course.Step, ms *course.ManifestStep, run *gotest.TestRun, stderr string) {
	check := func(name string, problems ...string) {
		t.Run(name, func(t *testing.T) {
			for _, p := range problems {
				t.Errorf("%s: %s", step.Name, p)
			}
		})
	}
	skip := func(why string, names ...string) {
		for _, name := range names {
			t.Run(name, func(t *testing.T) { t.Skipf("%s: %s", step.Name, why) })
		}
	}
	solutionDir := step.SolutionDir(root)
	if !isDir(solutionDir) {
		check("it has a solution", fmt.Sprintf("no solution folder solutions/%s: every step has its finished version there", step.Name))
		return
	}

	problems, err := solutionTestProblems(step, solutionDir)
	if err != nil {
		problems = append(problems, "reading the test files: "+err.Error())
	}
	check("its tests live in the step alone", problems...)

	readme, err := os.ReadFile(filepath.Join(step.Dir, "README.md"))
	if err != nil {
		problems = []string{"the step has no README.md to teach it"}
	} else {
		problems = readmeProblems(step, ms, string(readme))
	}
	check("its README's tasks, commands and hint commands are course.yaml's", problems...)
	tasks := course.ManifestTasks(ms, string(readme))

	todos, err := sourceTODOs(step.Dir)
	problems = todoFileProblems(ms, todos)
	if err != nil {
		problems = append(problems, "reading the starter's sources: "+err.Error())
	}
	check("its TODOs are in the files course.yaml lists", problems...)

	check("each task has its hints", hintProblems(step, tasks)...)

	left, err := sourceTODOs(solutionDir)
	problems = nil
	if err != nil {
		problems = append(problems, "reading the solution's sources: "+err.Error())
	}
	for _, td := range left {
		problems = append(problems, fmt.Sprintf("solutions/%s/%s:%d: TODO(task %d) is still there: a solution does every task", step.Name, td.File, td.Line, td.N))
	}
	check("its solution has no TODO left", problems...)

	check("its mistake catalog names the manifest's tasks and applies", catalogCheck(root, step, tasks)...)

	const (
		builds = "the starter builds and vets clean"
		red    = "the starter's tests fail by failing assertions, quickly"
		one    = "every test it runs is selected by exactly one task's run, every run selects one"
	)
	if run == nil {
		skip("-short skips building and running the starter; run without -short for the whole check", builds, red, one)
		return
	}
	t.Logf("the starter: %d failing tests and subtests in %.2fs", len(run.Failed), run.Elapsed)
	if run.BuildFailed {
		what := "does not build"
		if isVetFailure(run.BuildOutput) {
			what = "is not go vet clean"
		}
		check(builds, fmt.Sprintf("the starter %s (go test ./%s) — a starter must compile and vet clean:\n%s", what, step.Name, strings.TrimSpace(run.BuildOutput)))
		skip("the starter does not build", red, one)
		return
	}
	check(builds)
	if p := starterProblem(run, stderr, starterBudget); p != "" {
		check(red, fmt.Sprintf("go test ./%s: %s", step.Name, p))
	} else {
		check(red)
	}
	if course.RunProblem(run, stderr) != "" {
		skip("the starter's run did not finish, so not every test's name is known", one)
		return
	}
	// Every top-level test ran (go test without -run): what go test -list
	// would list.
	check(one, selectionProblems(tasks, run.TopLevel())...)
}

// starterProblem says why a starter's run is not the red an exercise should
// start with, or returns "" if its tests failed by assertions within budget.
func starterProblem(r *gotest.TestRun, stderr string, budget time.Duration) string {
	if p := course.RunProblem(r, stderr); p != "" {
		return p + "\n(a starter must build, and its stubs fail fast: return an error or 501, never block or panic)"
	}
	switch {
	case r.Result == "pass":
		return "its tests pass on the starter: an exercise must start red, its tests failing until the tasks are done"
	case r.Result == "skip":
		return "it has no tests to fail (package skipped: no test files?)"
	case len(r.Failed) == 0:
		return "the test binary failed, but no test did: something outside the tests (TestMain, an init, os.Exit in a test) made it fail:\n" +
			strings.Join(r.Output[max(0, len(r.Output)-25):], "\n")
	}
	if elapsed := time.Duration(r.Elapsed * float64(time.Second)); elapsed > budget {
		return fmt.Sprintf("its tests took %v to fail, over the budget of %v: a learner's red run must take seconds — a stub or a test waits on real time", elapsed.Round(time.Millisecond), budget)
	}
	return ""
}

// isVetFailure tells go vet's complaints from the compiler's in a build's
// output: vet's come under a "# [package]" heading.
func isVetFailure(buildOutput string) bool {
	for _, line := range strings.Split(buildOutput, "\n") {
		if strings.HasPrefix(line, "# [") {
			return true
		}
	}
	return false
}

func isDir(path string) bool {
	info, err := os.Stat(path)
	return err == nil && info.IsDir()
}
