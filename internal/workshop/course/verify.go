package course

// The workshop's integrity check (solutions/README.md): for every step, the
// exercise is fair — its starter builds and vets clean and its tests fail on
// it quickly, by assertion; its tests live in the step alone; its README's
// tasks, their commands, its TODOs and its hints agree. The solutions are
// tested by TestSolutions (overlay.go), beside this check in
// `go test ./solutions/...` and after it in `go tool workshop verify`.

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

// Names of the checks, as the test suite's subtests show them.
const (
	CheckTestFiles   = "its tests live in the step alone"
	CheckReadme      = "its README's tasks and commands are course.yaml's"
	CheckCommands    = "each task's README section shows its command"
	CheckTODOs       = "its TODOs are in the files course.yaml lists"
	CheckHints       = "each task has its hints, and the README shows none"
	CheckSolution    = "its solution has no TODO left"
	CheckOneTask     = "every top-level test is selected by exactly one task's run"
	CheckCatalog     = "its mistake catalog names the manifest's tasks and applies"
	CheckBuilds      = "the starter builds and vets clean"
	CheckRed         = "the starter's tests fail by failing assertions, quickly"
	CheckSelects     = "every task's go test -run command selects a test"
	defaultBudget    = 10 * time.Second
	defaultTimeout   = "60s"
	defaultCmdBudget = 10 * time.Minute
)

// A Check is one verdict on one step.
type Check struct {
	Name     string
	Problems []string // empty: the check passed
	Skipped  string   // why the check did not run
	Notes    []string // what it saw, for the log
	// Reported are problems listed but not failed: a check landed while
	// the steps are being brought in line with it (see StrictCommands).
	Reported []string
}

// StrictOneTask makes CheckOneTask fail rather than report. It was off
// while the step authors split the tests that checked several tasks; every
// step passes it now.
var StrictOneTask = true

// StrictCommands makes CheckCommands fail rather than report. It was off
// while the step authors brought their READMEs to one command per task;
// every step passes it now.
var StrictCommands = true

// fail files problems as failures, or as reports when strict is false.
func (c *Check) fail(strict bool, problems ...string) {
	if strict {
		c.Problems = append(c.Problems, problems...)
	} else {
		c.Reported = append(c.Reported, problems...)
	}
}

// A StepReport is every verdict on one step, in order.
type StepReport struct {
	Step   Step
	Checks []*Check
}

func (s *StepReport) add(name string) *Check {
	c := &Check{Name: name}
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
	Notes    []string
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
	// Budget is how long a starter's tests may take to fail (10 s). The
	// target is about a second; the margin is for a busy machine.
	Budget time.Duration
	// Timeout stops a starter whose tests hang ("60s"), so that the check
	// can say so instead of hanging too.
	Timeout string
	// Progress, if set, hears what the check is doing.
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
	if opt.Budget == 0 {
		opt.Budget = defaultBudget
	}
	if opt.Timeout == "" {
		opt.Timeout = defaultTimeout
	}
	progress := opt.Progress
	if progress == nil {
		progress = func(string) {}
	}
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
	progress(fmt.Sprintf("reading %s and %d steps: README tasks, TODOs, hints, test files", ManifestFile, len(steps)))
	m, err := ReadManifest(root)
	if err != nil {
		rep.Problems = append(rep.Problems, err.Error())
		m = &Manifest{}
	}
	rep.Problems = append(rep.Problems, m.Problems()...)
	rep.Problems = append(rep.Problems, FolderProblems(m, steps)...)
	tasksOf := map[string][]Task{}
	var runnable []*StepReport
	for _, step := range steps {
		sr := &StepReport{Step: step}
		rep.Steps = append(rep.Steps, sr)
		ms, ok := m.Step(step.Name)
		if !ok {
			continue // FolderProblems said so
		}
		tasks, ok := staticChecks(sr, root, ms)
		tasksOf[step.Name] = tasks
		if ok {
			runnable = append(runnable, sr)
		}
	}
	if opt.Short {
		for _, sr := range rep.Steps {
			for _, name := range []string{CheckBuilds, CheckRed, CheckSelects, CheckOneTask} {
				sr.add(name).Skipped = "-short skips building and running the starter; run without -short for the whole check"
			}
		}
		return rep, nil
	}

	// One go test over every starter: it builds them, vets them (all
	// analyzers, lostcancel included) and runs their tests.
	var pkgs []string
	for _, sr := range runnable {
		pkgs = append(pkgs, "./"+sr.Step.Name)
	}
	cctx, cancel := context.WithTimeout(ctx, defaultCmdBudget)
	defer cancel()
	// -p: a starter's tests mostly wait (for a deadline, a socket) rather
	// than compute, so run every starter's binary at once, not GOMAXPROCS at
	// a time.
	parallel := fmt.Sprintf("-p=%d", max(runtime.GOMAXPROCS(0), min(len(pkgs), 8)))
	vet := "-vet=" // go test's own choice of analyzers: its work is shared with the outer go test
	if opt.VetAll {
		vet = "-vet=all"
	}
	progress(fmt.Sprintf("building, vetting and testing %d starters: go test -json %s -count=1 %s -timeout %s %s",
		len(pkgs), vet, parallel, opt.Timeout, strings.Join(pkgs, " ")))
	runs, stderr := g.TestJSON(cctx, append([]string{vet, "-count=1", parallel, "-timeout", opt.Timeout}, pkgs...)...)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	for _, sr := range runnable {
		run := pick(runs, modPath+"/"+sr.Step.Name)
		starterChecks(ctx, g, sr, tasksOf[sr.Step.Name], run, stderr, opt.Budget, vet)
		verdict := "fair"
		if !sr.OK() {
			verdict = "PROBLEMS"
		}
		progress(fmt.Sprintf("%s: %s (%d failing tests and subtests in %.2fs)", sr.Step.Name, verdict, len(run.Failed), run.Elapsed))
	}
	return rep, nil
}

// staticChecks runs the checks that need no build, and reports whether the
// step can go on to the checks that do.
func staticChecks(sr *StepReport, root string, ms *ManifestStep) ([]Task, bool) {
	step := sr.Step
	solutionDir := step.SolutionDir(root)
	if info, err := os.Stat(solutionDir); err != nil || !info.IsDir() {
		c := sr.add("it has a solution")
		c.Problems = append(c.Problems, fmt.Sprintf("no solution folder solutions/%s: every step has its finished version there", step.Name))
		return nil, false
	}

	c := sr.add(CheckTestFiles)
	problems, err := SolutionTestProblems(step, solutionDir)
	if err != nil {
		problems = append(problems, "reading the test files: "+err.Error())
	}
	c.Problems = problems

	c = sr.add(CheckReadme)
	readme, err := os.ReadFile(filepath.Join(step.Dir, "README.md"))
	if err != nil {
		c.Problems = append(c.Problems, "the step has no README.md to teach it")
	} else {
		c.Problems = ReadmeProblems(ms, string(readme))
		sr.add(CheckCommands).fail(StrictCommands, CommandProblems(ms, string(readme))...)
	}
	tasks := ManifestTasks(ms, string(readme))

	c = sr.add(CheckTODOs)
	todos, err := StarterTODOs(step.Dir)
	if err != nil {
		c.Problems = append(c.Problems, "reading the starter's sources: "+err.Error())
	}
	c.Problems = append(c.Problems, TODOFileProblems(ms, todos)...)
	c.Notes = append(c.Notes, fmt.Sprintf("%d tasks, %d TODO markers", len(tasks), len(todos)))

	c = sr.add(CheckHints)
	if readme != nil {
		c.Problems = append(ReadmeHintProblems(step, string(readme), tasks), HintProblems(step, tasks)...)
	}

	c = sr.add(CheckSolution)
	left, err := StarterTODOs(solutionDir)
	if err != nil {
		c.Problems = append(c.Problems, "reading the solution's sources: "+err.Error())
	}
	for _, td := range left {
		c.Problems = append(c.Problems, fmt.Sprintf("solutions/%s/%s:%d: TODO(task %d) is still there: a solution does every task", step.Name, td.File, td.Line, td.N))
	}
	catalogCheck(sr.add(CheckCatalog), root, step, tasks)
	return tasks, true
}
