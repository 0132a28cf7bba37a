package course

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
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
	// cached apart from the tests' results (Cache.LoadVet), by the same hash.
	Vet string   `json:"-"`
	Run *TestRun `json:"-"` // the run it comes from; nil when it came from the cache
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
// version, the step's files (its hints excepted), the module's go.mod and
// go.sum, course.yaml (its tasks and their patterns: while it is broken,
// the result is that error), and the shared code under internal/ that
// tests import.
func StepHash(root string, step Step) (string, error) {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00", runtime.Version(), step.Name)
	add := func(path string) error {
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		fmt.Fprintf(h, "%s\x00", filepath.ToSlash(rel))
		_, err = io.Copy(h, f)
		h.Write([]byte{0})
		return err
	}
	walk := func(dir string, keep func(path string, d fs.DirEntry) (bool, error)) error {
		return filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				if os.IsNotExist(err) && path == dir {
					return filepath.SkipDir
				}
				return err
			}
			ok, err := keep(path, d)
			if err != nil || !ok || d.IsDir() {
				return err
			}
			return add(path)
		})
	}
	err := walk(step.Dir, func(path string, d fs.DirEntry) (bool, error) {
		name := d.Name()
		if d.IsDir() {
			if path != step.Dir && (name == "hints" || strings.HasPrefix(name, ".")) {
				return false, filepath.SkipDir
			}
			return true, nil
		}
		// go build inside the folder writes a binary named after it.
		return name != step.Name && name != step.Name+".exe", nil
	})
	if err != nil {
		return "", err
	}
	for _, name := range []string{"go.mod", "go.sum", ManifestFile} {
		if err := add(filepath.Join(root, name)); err != nil && !os.IsNotExist(err) {
			return "", err
		}
	}
	internal := filepath.Join(root, "internal")
	err = walk(internal, func(path string, d fs.DirEntry) (bool, error) {
		if d.IsDir() {
			if name := d.Name(); name == "workshop" || name == "load" || name == "testdata" {
				return false, filepath.SkipDir
			}
			return true, nil
		}
		return strings.HasSuffix(path, ".go") && !strings.HasSuffix(path, "_test.go"), nil
	})
	if err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil))[:32], nil
}

// Statuses returns where the learner stands in every step: from the cache
// when nothing changed, otherwise from one `go test -json` run over every
// step that changed. A step whose tasks all pass is vetted too (go vet,
// cached by the same hash): it is finished only when vet is clean. See
// StatusesEach (stream.go) to hear of each step as soon as it is known.
func Statuses(ctx context.Context, g Go, root string, steps []Step, cache Cache, progress func(string)) ([]*StepStatus, error) {
	return StatusesEach(ctx, g, root, steps, cache, progress, nil)
}

// judge fills a step's status from a run of its tests.
func judge(ctx context.Context, g Go, step Step, st *StepStatus, run *TestRun, stderr string, extra ...string) {
	st.Run = run
	tasks, err := step.ReadTasks()
	if err != nil {
		st.Problem = err.Error()
		return
	}
	st.Problem = RunProblem(run, stderr)
	st.Tasks = TaskResults(ctx, g, "./"+step.Name, tasks, run, extra...)
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
func RunProblem(run *TestRun, stderr string) string {
	switch {
	case run.BuildFailed:
		what := "does not build"
		if IsVetFailure(run.BuildOutput) {
			what = "is not go vet clean"
		}
		return fmt.Sprintf("the step %s:\n%s", what, indent(tail(nonEmpty(strings.Split(strings.TrimSpace(run.BuildOutput), "\n")), 12)))
	case run.Result == "":
		out := strings.TrimSpace(stderr)
		if out == "" {
			out = tail(run.Output, 12)
		}
		return "go test gave no result:\n" + indent(out)
	}
	if line, test, ok := run.crash(); ok {
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
func testMessages(r TestRun, max int) string {
	var lines []string
	for _, name := range r.testsWithOutput() {
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

// CheckStep runs a step the strict way: go vet with every analyzer, then its tests
// with the race detector where it is available. vetOut is vet's complaint,
// if any: when it is that the step does not compile (VetCompileError), the
// tests do not run; a finding of vet's does not stop them, so that the
// status shows which tasks pass beside it (st.Vet holds it too). raceNote
// says why -race was left out.
func CheckStep(ctx context.Context, g Go, root string, step Step, cache Cache) (st *StepStatus, vetOut, raceNote string, err error) {
	g.Dir = root
	hash, err := StepHash(root, step)
	if err != nil {
		return nil, "", "", err
	}
	st = &StepStatus{Step: step.Name, Hash: hash}
	// check always runs vet itself (a cached verdict could be from a go vet
	// run before a change to a file the hash does not cover), and keeps its
	// verdict for the overview.
	v, err := runVet(ctx, g, root, step, hash, cache)
	if err != nil {
		return nil, "", "", err
	}
	st.Vet = v.Output
	if VetCompileError(v.Output) {
		return st, v.Output, "", nil
	}
	race := []string{"-race"}
	if why := g.RaceProblem(ctx); why != "" {
		race, raceNote = nil, why
	}
	args := append([]string{"-count=1", "-vet=off", "-timeout", "120s"}, race...)
	runs, stderr := g.TestJSON(ctx, append(args, "./"+step.Name)...)
	if len(race) > 0 && raceUnsupported(stderr) {
		race, raceNote = nil, strings.TrimSpace(stderr)
		args = []string{"-count=1", "-vet=off", "-timeout", "120s"}
		runs, stderr = g.TestJSON(ctx, append(args, "./"+step.Name)...)
	}
	if ctx.Err() != nil {
		return nil, "", "", ctx.Err()
	}
	modPath, err := ModulePath(root)
	if err != nil {
		return nil, "", "", err
	}
	judge(ctx, g, step, st, pick(runs, modPath+"/"+step.Name), stderr, append([]string{"-vet=off"}, race...)...)
	cache.Store(st)
	return st, v.Output, raceNote, nil
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
