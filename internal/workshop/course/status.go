package course

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"

	"github.com/icecreamcorp/go-cancellation-workshop/internal/gotest"
)

// StepStatus is where a learner stands in one step.
type StepStatus struct {
	Step    string
	Hash    string       // of everything its tests depend on
	Tasks   []TaskResult // in the README's order
	Problem string       // why its tests did not run to the end: a build error, a crash
	// CrashTask is the task a crash belongs to (CrashTask), 0 for none.
	CrashTask int `json:",omitempty"`
	// RaceTask is the task a data race report belongs to (RaceTask), 0 for
	// none: that task is not done, whichever test the report failed.
	RaceTask int `json:",omitempty"`
	// Vet is go vet's complaint about the step ("" when vet is clean, or was
	// not run: Statuses runs it for a step whose tasks are all done). It is
	// cached apart from the tests' results (Cache.loadVet), by the same hash.
	Vet string          `json:"-"`
	Run *gotest.TestRun `json:"-"` // the run it comes from; nil when it came from the cache
}

// Done counts the tasks done.
func (s *StepStatus) Done() int {
	n := 0
	for _, t := range s.Tasks {
		if t.Done {
			n++
		}
	}
	return n
}

// TasksDone reports whether the step's tests ran and every task passed.
func (s *StepStatus) TasksDone() bool {
	return s.Problem == "" && len(s.Tasks) > 0 && s.Done() == len(s.Tasks)
}

// Finished reports whether every task of the step is done and go vet is
// clean: a lost cancel passes the tests, not vet.
func (s *StepStatus) Finished() bool {
	return s.TasksDone() && s.Vet == ""
}

// StepHash hashes everything a step's test results depend on: the Go
// version, the step's files (its hints and dot folders excepted, and the
// binary go build leaves there), the module's go.mod and go.sum, course.yaml
// (its tasks and their patterns: while it is broken, the result is that
// error), and the non-test Go files under internal/ (the test kit; the
// runner, the lab and gotest aside).
func StepHash(root string, step Step) (string, error) {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00", runtime.Version(), step.Name)
	add := func(path string) error {
		data, err := os.ReadFile(path)
		rel, _ := filepath.Rel(root, path)
		fmt.Fprintf(h, "%s\x00%d\x00%s", filepath.ToSlash(rel), len(data), data)
		return err
	}
	walk := func(dir string, skip []string, keep func(name string) bool) error {
		return filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			switch {
			case err != nil && path == dir && os.IsNotExist(err):
				return filepath.SkipDir
			case err != nil:
				return err
			case d.IsDir() && path != dir && (slices.Contains(skip, d.Name()) || strings.HasPrefix(d.Name(), ".")):
				return filepath.SkipDir
			case d.IsDir() || !keep(d.Name()):
				return nil
			}
			return add(path)
		})
	}
	err := walk(step.Dir, []string{"hints"}, func(name string) bool { return name != step.Name && name != step.Name+".exe" })
	for _, name := range []string{"go.mod", "go.sum", ManifestFile} {
		if err == nil {
			if err = add(filepath.Join(root, name)); os.IsNotExist(err) {
				err = nil
			}
		}
	}
	if err == nil {
		err = walk(filepath.Join(root, "internal"), []string{"workshop", "load", "gotest", "testdata"}, func(name string) bool {
			return strings.HasSuffix(name, ".go") && !strings.HasSuffix(name, "_test.go")
		})
	}
	return hex.EncodeToString(h.Sum(nil))[:32], err
}

// FirstRunNote is said before a run in which no step's results are cached:
// the runner's first run in this clone, likely on an empty build cache.
const FirstRunNote = "first run: go test builds every step's tests, which compiles the standard library's HTTP stack once " +
	"(about a minute on a 2-core machine with an empty build cache); later runs take seconds"

// Statuses returns where the learner stands in every step: from the cache
// when nothing changed, otherwise from one `go test -json` run over every
// step that changed. A step whose tasks all pass is vetted too (go vet,
// cached by the same hash): it is finished only when vet is clean. each, if
// not nil, hears of every step's final status as soon as it is known, in the
// steps' order: the cached ones at once, the others as their tests end.
func Statuses(ctx context.Context, g gotest.Go, root string, steps []Step, cache Cache, progress func(string), each func(i int, st *StepStatus)) ([]*StepStatus, error) {
	g.Dir = root
	modPath, err := gotest.ModulePath(root)
	if err != nil {
		return nil, err
	}
	sts := make([]*StepStatus, len(steps))
	known := make([]bool, len(steps))
	index := map[string]int{}
	var pkgs, names []string
	for i, step := range steps {
		hash, err := StepHash(root, step)
		if err != nil {
			return nil, err
		}
		sts[i], known[i] = cache.Load(hash)
		if !known[i] {
			sts[i] = &StepStatus{Step: step.Name, Hash: hash}
			index[modPath+"/"+step.Name] = i
			pkgs, names = append(pkgs, "./"+step.Name), append(names, step.Name)
		}
	}
	next := 0 // the first step not handed to each yet
	var vetErr error
	flush := func() {
		for ; next < len(steps) && known[next] && vetErr == nil; next++ {
			st := sts[next]
			if st.TasksDone() {
				var ok bool
				if st.Vet, ok = cache.loadVet(st.Hash); !ok {
					progress(fmt.Sprintf("go vet ./%s: its tasks pass; is vet clean too? (once, until you change a file)", st.Step))
					st.Vet, vetErr = runVet(ctx, g, root, steps[next], st.Hash, cache)
				}
			}
			if each != nil && vetErr == nil {
				each(next, st)
			}
		}
	}
	judged := func(run *gotest.TestRun, stderr string) {
		if i, ok := index[run.Package]; ok && !known[i] && ctx.Err() == nil {
			judge(sts[i], steps[i], run, stderr)
			cache.Store(sts[i])
			known[i] = true
			flush()
		}
	}
	flush()
	if len(pkgs) > 0 {
		if len(pkgs) == len(steps) && len(steps) > 1 { // the note speaks of every step
			progress(FirstRunNote)
		}
		progress(fmt.Sprintf("running the tests of %s (once: the results are kept until you change a file)", strings.Join(names, ", ")))
		// -vet=off: go vet runs on its own (Vet), so that a vet finding shows
		// as one, beside tests that pass, not as a build failure of every task.
		runs, stderr := g.TestJSON(ctx, func(run *gotest.TestRun) { judged(run, "") },
			append([]string{"-count=1", "-vet=off", "-timeout", "120s"}, pkgs...)...)
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		for pkg := range index { // the packages that never ended: a build of them all failed, say
			judged(gotest.Pick(runs, pkg), stderr)
		}
	}
	if vetErr != nil {
		return nil, vetErr
	}
	return sts, nil
}

// judge fills a step's status from a run of its tests (of all its tasks, or
// of those given).
func judge(st *StepStatus, step Step, run *gotest.TestRun, stderr string, tasks ...Task) {
	st.Run = run
	if tasks == nil {
		var err error
		if tasks, err = step.ReadTasks(); err != nil {
			st.Problem = err.Error()
			return
		}
	}
	st.Problem = RunProblem(run, stderr)
	st.Tasks = TaskResults(tasks, run)
	if st.Problem != "" {
		st.CrashTask = CrashTask(run, step.Name, tasks)
	}
	if st.RaceTask = RaceTask(run, step.Name, tasks); st.RaceTask != 0 {
		for i := range st.Tasks {
			if st.Tasks[i].N == st.RaceTask {
				st.Tasks[i].Done = false
			}
		}
	}
}

// RunProblem says why a run of a step's tests did not run them all to a
// verdict — it did not build, crashed or hung — or returns "".
func RunProblem(run *gotest.TestRun, stderr string) string {
	switch {
	case run.BuildFailed: // not vet's: the runner's go test runs with -vet=off
		return "the step does not build:\n" + indent(tail(nonEmpty(strings.Split(strings.TrimSpace(run.BuildOutput), "\n")), 12))
	case run.Result == "":
		out := strings.TrimSpace(stderr)
		if out == "" {
			out = tail(run.Output, 12)
		}
		return "go test gave no result:\n" + indent(out)
	}
	if line, test, ok := run.Crash(); ok {
		where := ""
		if test != "" {
			where = " in " + test
		}
		if strings.HasPrefix(line, "panic: test timed out") {
			return fmt.Sprintf("the tests hung%s and were stopped (%s):\n%s", where, line, indent(crashExcerpt(*run, line, 14)))
		}
		said := ""
		if msgs := testMessages(*run, 6); msgs != "" {
			said = "What the tests said before it:\n" + indent(msgs) + "\n"
		}
		return fmt.Sprintf("the tests crashed%s (%s):\n%s%s", where, line, said, indent(crashExcerpt(*run, line, 14)))
	}
	return ""
}

// testLog matches a line a test logged (t.Errorf, t.Logf): "    x_test.go:12: …".
var testLog = regexp.MustCompile(`^\s+\S+_test\.go:\d+: `)

// testMessages returns up to max lines the tests of a crashed run logged
// before it crashed: often the message that names the fix, which the
// panic's stack alone does not.
func testMessages(r gotest.TestRun, max int) string {
	var lines []string
	for _, name := range r.TestsWithOutput() {
		for _, l := range r.ByTest[name] {
			if strings.HasPrefix(l, "panic: ") || strings.HasPrefix(l, "fatal error: ") {
				break
			}
			if testLog.MatchString(l) {
				lines = append(lines, strings.TrimSpace(l))
			}
		}
	}
	if len(lines) > max {
		lines = append(lines[:max], fmt.Sprintf("[… %d more]", len(lines)-max))
	}
	return strings.Join(lines, "\n")
}

// nonEmpty drops blank lines, and go's "# package" headings.
func nonEmpty(lines []string) []string {
	return slices.DeleteFunc(lines, func(s string) bool { return strings.TrimSpace(s) == "" || strings.HasPrefix(s, "# ") })
}

// CheckStep runs a step the strict way: go vet with every analyzer, then its
// tests with the race detector where it is available (raceNote says why
// not). st.Vet is vet's complaint, if any: when it is that the step does not
// compile (VetCompileError), the tests do not run; a finding of vet's does
// not stop them, so that the status shows which tasks pass beside it.
func CheckStep(ctx context.Context, g gotest.Go, root string, step Step, cache Cache) (st *StepStatus, raceNote string, err error) {
	g.Dir = root
	hash, err := StepHash(root, step)
	if err != nil {
		return nil, "", err
	}
	// check always runs vet itself (a cached verdict could be from a go vet
	// run before a change to a file the hash does not cover), and keeps its
	// verdict for the overview.
	vet, err := runVet(ctx, g, root, step, hash, cache)
	st = &StepStatus{Step: step.Name, Hash: hash, Vet: vet}
	if err != nil || VetCompileError(vet) {
		return st, "", err
	}
	args := []string{"-count=1", "-vet=off", "-timeout", "120s", "-race", "./" + step.Name}
	runs, stderr := g.TestJSON(ctx, nil, args...)
	if strings.Contains(stderr, "-race requires cgo") || strings.Contains(stderr, "-race is not supported") {
		raceNote = strings.TrimSpace(stderr)
		runs, stderr = g.TestJSON(ctx, nil, slices.Delete(args, 4, 5)...)
	}
	run, err := stepRun(ctx, root, step, runs)
	if err != nil {
		return nil, "", err
	}
	judge(st, step, run, stderr)
	cache.Store(st)
	return st, raceNote, nil
}

// QuickTask runs the tests of one task of a step (go test -run its pattern,
// -vet=off, -failfast, no -race) and judges that task alone, so that a
// verdict comes a second after a save; it is not cached, and only CheckStep
// says a step is done.
func QuickTask(ctx context.Context, g gotest.Go, root string, step Step, tk Task) (*StepStatus, error) {
	g.Dir = root
	// After a save, go test compiles the step's package and relinks its test
	// binary: most of the wait. Without optimisation (-N -l, on the step's
	// package alone) and without DWARF (-w) both take about a quarter less.
	// The screen shows the task's first failure, so -failfast.
	runs, stderr := g.TestJSON(ctx, nil, "-count=1", "-vet=off", "-failfast", "-gcflags=-N -l", "-ldflags=-w",
		"-timeout", "60s", "-run", tk.Run, "./"+step.Name)
	run, err := stepRun(ctx, root, step, runs)
	if err != nil {
		return nil, err
	}
	st := &StepStatus{Step: step.Name}
	judge(st, step, run, stderr, tk)
	return st, nil
}

// stepRun picks a step's package among the runs of a go test that ctx did
// not stop.
func stepRun(ctx context.Context, root string, step Step, runs []*gotest.TestRun) (*gotest.TestRun, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	modPath, err := gotest.ModulePath(root)
	return gotest.Pick(runs, modPath+"/"+step.Name), err
}

// VetCompileError reports whether go vet's complaint is that the code does
// not compile (a type error: "vet: file.go:3:26: …"), rather than a finding.
func VetCompileError(vetOut string) bool {
	for _, l := range strings.Split(vetOut, "\n") {
		if strings.HasPrefix(l, "vet: ") {
			return true
		}
	}
	return false
}
