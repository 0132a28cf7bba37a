package course

// The workshop's integrity check (solutions/README.md): for every step, the
// exercise is fair — its starter builds and vets clean and its tests fail on
// it quickly, by assertion; its tests live in the step alone; its README's
// tasks, their commands, its TODOs and its hints agree, and each of its
// tests belongs to one task. The solutions are tested by TestSolutions
// (overlay.go), beside this check in `go test ./solutions/...` and after it
// in `go tool workshop verify`.

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

const (
	// starterBudget is how long a starter's tests may take to fail. The
	// target is about a second; the margin is for a busy machine.
	starterBudget = 10 * time.Second
	// starterTimeout stops a starter whose tests hang, so that the check
	// can say so instead of hanging too.
	starterTimeout = "60s"
)

// A Check is one verdict on one step.
type Check struct {
	Name     string
	Problems []string // empty: the check passed
	Skipped  string   // why the check did not run
}

// A StepReport is every verdict on one step, in order.
type StepReport struct {
	Step   Step
	Checks []*Check
}

func (s *StepReport) add(name string, problems ...string) *Check {
	c := &Check{Name: name, Problems: problems}
	s.Checks = append(s.Checks, c)
	return c
}

// OK reports whether every check of the step passed.
func (s *StepReport) OK() bool {
	for _, c := range s.Checks {
		if len(c.Problems) > 0 {
			return false
		}
	}
	return true
}

// A Report is the integrity check's verdict on the module.
type Report struct {
	Problems []string // of the module as a whole
	Steps    []*StepReport
}

// OK reports whether the whole module passed.
func (r *Report) OK() bool {
	if len(r.Problems) > 0 {
		return false
	}
	for _, s := range r.Steps {
		if !s.OK() {
			return false
		}
	}
	return true
}

// VerifyOptions tune the integrity check.
type VerifyOptions struct {
	// Short skips everything that builds: the checks of text and files only.
	Short bool
	// Progress hears what the check is doing.
	Progress func(msg string)
	// VetAll vets the starters with every analyzer, as go vet does
	// (lostcancel among them), rather than with the few go test runs by
	// default. On a fresh clone it costs a type-check of every package the
	// starters import, the standard library's included, that the outer
	// `go test ./solutions/...` does not share: about 15 s of CPU. CI's
	// `go vet ./...` and `go tool workshop verify` do it; the test suite's
	// check does not.
	VetAll bool
	// Go runs the go command; its Dir is set to the module's root.
	Go Go
}

// Verify runs the integrity check on the module at root.
func Verify(ctx context.Context, root string, opt VerifyOptions) (*Report, error) {
	g := opt.Go
	g.Dir = root
	modPath, err := ModulePath(root)
	if err != nil {
		return nil, err
	}
	steps, err := Steps(root)
	if err != nil {
		return nil, err
	}
	rep := &Report{}
	if len(steps) == 0 {
		rep.Problems = append(rep.Problems, fmt.Sprintf("no step folder (%s) at the top of the module %s: the integrity check has nothing to prove", StepGlob, root))
		return rep, nil
	}
	solved, err := filepath.Glob(filepath.Join(root, "solutions", StepGlob))
	if err != nil {
		return nil, err
	}
	for _, dir := range solved {
		if info, err := os.Stat(filepath.Join(root, filepath.Base(dir))); err != nil || !info.IsDir() {
			rep.Problems = append(rep.Problems, fmt.Sprintf("solutions/%s has no step folder %s at the top of the module: a solution without its exercise teaches nothing", filepath.Base(dir), filepath.Base(dir)))
		}
	}

	// The checks of text and files, step by step: milliseconds.
	opt.Progress(fmt.Sprintf("reading %s and %d steps: README tasks, TODOs, hints, test files", ManifestFile, len(steps)))
	m, err := ReadManifest(root)
	if err != nil {
		rep.Problems = append(rep.Problems, err.Error())
		m = &Manifest{}
	}
	rep.Problems = append(rep.Problems, m.Problems()...)
	rep.Problems = append(rep.Problems, FolderProblems(m, steps)...)
	var runnable []*StepReport
	tasksOf := map[*StepReport][]Task{}
	for _, step := range steps {
		sr := &StepReport{Step: step}
		rep.Steps = append(rep.Steps, sr)
		if ms, ok := m.Step(step.Name); ok { // else FolderProblems said so
			if tasks, ok := staticChecks(sr, root, ms); ok {
				runnable, tasksOf[sr] = append(runnable, sr), tasks
			}
		}
	}
	const (
		buildCheck = "the starter builds and vets clean"
		redCheck   = "the starter's tests fail by failing assertions, quickly"
		oneCheck   = "every test it runs is selected by exactly one task's run, every run selects one"
	)
	if opt.Short {
		for _, sr := range rep.Steps {
			for _, name := range []string{buildCheck, redCheck, oneCheck} {
				sr.add(name).Skipped = "-short skips building and running the starter; run without -short for the whole check"
			}
		}
		return rep, nil
	}

	// One go test over every starter: it builds them, vets them and runs
	// their tests. -p: a starter's tests mostly wait (for a deadline, a
	// socket) rather than compute, so run every starter's binary at once,
	// not GOMAXPROCS at a time.
	var pkgs []string
	for _, sr := range runnable {
		pkgs = append(pkgs, "./"+sr.Step.Name)
	}
	parallel := fmt.Sprintf("-p=%d", max(runtime.GOMAXPROCS(0), min(len(pkgs), 8)))
	vet := "-vet=" // go test's own choice of analyzers: its work is shared with the outer go test
	if opt.VetAll {
		vet = "-vet=all"
	}
	opt.Progress(fmt.Sprintf("building, vetting and testing %d starters: go test -json %s -count=1 %s -timeout %s %s",
		len(pkgs), vet, parallel, starterTimeout, strings.Join(pkgs, " ")))
	runs, stderr := g.TestJSON(ctx, append([]string{vet, "-count=1", parallel, "-timeout", starterTimeout}, pkgs...)...)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	for _, sr := range runnable {
		run := pick(runs, modPath+"/"+sr.Step.Name)
		builds, red, one := sr.add(buildCheck), sr.add(redCheck), sr.add(oneCheck)
		switch _, _, crashed := run.crash(); {
		case run.BuildFailed:
			what := "does not build"
			if IsVetFailure(run.BuildOutput) {
				what = "is not go vet clean"
			}
			builds.Problems = append(builds.Problems, fmt.Sprintf("the starter %s (go test %s ./%s) — a starter must compile and vet clean:\n%s",
				what, vet, sr.Step.Name, indent(strings.TrimSpace(run.BuildOutput))))
			red.Skipped, one.Skipped = "the starter does not build", "the starter does not build"
		case crashed || run.Result == "":
			one.Skipped = "the starter's run did not finish, so not every test's name is known"
		default:
			// Every top-level test ran (go test without -run): what
			// go test -list would list.
			one.Problems = SelectionProblems(tasksOf[sr], run.TopLevel())
		}
		if err := StarterProblem(*run, starterBudget); err != nil && !run.BuildFailed {
			red.Problems = append(red.Problems, fmt.Sprintf("go test ./%s: %v%s", sr.Step.Name, err, quoteStderr(stderr)))
		}
		verdict := "fair"
		if !sr.OK() {
			verdict = "PROBLEMS"
		}
		opt.Progress(fmt.Sprintf("%s: %s (%d failing tests and subtests in %.2fs)", sr.Step.Name, verdict, len(run.Failed), run.Elapsed))
	}
	return rep, nil
}

// staticChecks runs the checks that need no build, and reports whether the
// step can go on to the checks that do.
func staticChecks(sr *StepReport, root string, ms *ManifestStep) ([]Task, bool) {
	step := sr.Step
	solutionDir := step.SolutionDir(root)
	if info, err := os.Stat(solutionDir); err != nil || !info.IsDir() {
		sr.add("it has a solution", fmt.Sprintf("no solution folder solutions/%s: every step has its finished version there", step.Name))
		return nil, false
	}

	problems, err := SolutionTestProblems(step, solutionDir)
	if err != nil {
		problems = append(problems, "reading the test files: "+err.Error())
	}
	sr.add("its tests live in the step alone", problems...)

	readme, err := os.ReadFile(filepath.Join(step.Dir, "README.md"))
	if err != nil {
		problems = []string{"the step has no README.md to teach it"}
	} else {
		problems = ReadmeProblems(step, ms, string(readme))
	}
	sr.add("its README's tasks, commands and hint commands are course.yaml's", problems...)
	tasks := ManifestTasks(ms, string(readme))

	todos, err := StarterTODOs(step.Dir)
	problems = TODOFileProblems(ms, todos)
	if err != nil {
		problems = append(problems, "reading the starter's sources: "+err.Error())
	}
	sr.add("its TODOs are in the files course.yaml lists", problems...)

	sr.add("each task has its hints", HintProblems(step, tasks)...)

	left, err := StarterTODOs(solutionDir)
	problems = nil
	if err != nil {
		problems = append(problems, "reading the solution's sources: "+err.Error())
	}
	for _, td := range left {
		problems = append(problems, fmt.Sprintf("solutions/%s/%s:%d: TODO(task %d) is still there: a solution does every task", step.Name, td.File, td.Line, td.N))
	}
	sr.add("its solution has no TODO left", problems...)

	catalogCheck(sr.add("its mistake catalog names the manifest's tasks and applies"), root, step, tasks)
	return tasks, true
}

// IsVetFailure tells go vet's complaints from the compiler's in a build's
// output: vet's come under a "# [package]" heading.
func IsVetFailure(buildOutput string) bool {
	for _, line := range strings.Split(buildOutput, "\n") {
		if strings.HasPrefix(line, "# [") {
			return true
		}
	}
	return false
}

func quoteStderr(stderr string) string {
	if s := strings.TrimSpace(stderr); s != "" {
		return "\ngo test's stderr:\n" + indent(s)
	}
	return ""
}
