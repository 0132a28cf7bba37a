package solutions

// The integrity check's proof that the course agrees with itself: the
// manifest (course.yaml), the step folders, each step's README, the TODOs of
// its starter, its hints and its solution's files. Functions of text and of
// folders, run on every step by TestIntegrity and shown failing on bad
// fixtures by checks_test.go: a check that cannot fail proves nothing.

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/icecreamcorp/go-cancellation-workshop/internal/workshop/course"
)

// manifestProblems checks the manifest on its own: every step named once,
// with a title and tasks numbered 1, 2, 3…, each with a title, a valid -run
// pattern and a hints file.
func manifestProblems(m *course.Manifest) []string {
	const file = course.ManifestFile
	var problems []string
	seen := map[string]bool{}
	for _, s := range m.Steps {
		if s.Dir == "" {
			problems = append(problems, fmt.Sprintf("%s: a step without a dir", file))
			continue
		}
		if seen[s.Dir] {
			problems = append(problems, fmt.Sprintf("%s: step %s is listed twice", file, s.Dir))
		}
		seen[s.Dir] = true
		if s.Title == "" {
			problems = append(problems, fmt.Sprintf("%s: %s has no title (its README's H1)", file, s.Dir))
		}
		if len(s.Tasks) == 0 {
			problems = append(problems, fmt.Sprintf("%s: %s has no tasks", file, s.Dir))
		}
		for i, t := range s.Tasks {
			where := fmt.Sprintf("%s: %s task %d", file, s.Dir, t.Task)
			if t.Task != i+1 {
				problems = append(problems, fmt.Sprintf("%s comes where task %d should: number tasks 1, 2, 3… in order", where, i+1))
			}
			if t.Title == "" || t.Run == "" || t.Hints == "" {
				problems = append(problems, where+": title, run and hints are all required")
			}
			if _, err := regexp.Compile(t.Run); err != nil {
				problems = append(problems, fmt.Sprintf("%s: run '%s' is not a valid pattern: %v", where, t.Run, err))
			} else if strings.Contains(t.Run, "/") {
				problems = append(problems, fmt.Sprintf("%s: run '%s' names subtests: a task's run selects top-level tests", where, t.Run))
			}
			if bad := course.UnsafeRun.FindString(t.Run); bad != "" {
				problems = append(problems, fmt.Sprintf("%s: run %q holds %q, which a shell would end, split or expand inside the quotes its command is printed in: select the tests without it", where, t.Run, bad))
			}
			for _, f := range t.Files {
				if !filepath.IsLocal(f) || !strings.HasSuffix(f, ".go") || strings.HasSuffix(f, "_test.go") {
					problems = append(problems, fmt.Sprintf("%s: file %q is not a starter .go file of the step's folder", where, f))
				}
			}
		}
	}
	return problems
}

// folderProblems proves that every step folder is in the manifest and every
// step of the manifest has its folder.
func folderProblems(m *course.Manifest, steps []course.Step) []string {
	var problems []string
	for _, s := range steps {
		if _, ok := m.Step(s.Name); !ok {
			problems = append(problems, fmt.Sprintf("step folder %s is not in %s: list its tasks there", s.Name, course.ManifestFile))
		}
	}
	for _, ms := range m.Steps {
		if !slices.ContainsFunc(steps, func(s course.Step) bool { return s.Name == ms.Dir }) {
			problems = append(problems, fmt.Sprintf("%s lists %s, which is no step folder (%s) of the module", course.ManifestFile, ms.Dir, course.StepGlob))
		}
	}
	return problems
}

// readmeProblems proves that a step's README agrees with the manifest: its
// H1 is the step's title, it has no <details> block (a terminal prints it
// in full), and its "## Tasks" section has a "### Task N: <title>" for
// each task, in order, whose section shows the task's command,
// `go test -run '<run>' .` (and no other go test -run: one command per
// task), and how to ask for its hints.
func readmeProblems(s course.Step, ms *course.ManifestStep, readme string) []string {
	const file = course.ManifestFile
	var problems []string
	if h1 := firstH1(readme); h1 != ms.Title {
		problems = append(problems, fmt.Sprintf("README.md's title is %q, %s says %q", h1, file, ms.Title))
	}
	for i, line := range strings.Split(readme, "\n") {
		if strings.Contains(strings.ToLower(line), "<details") {
			problems = append(problems, fmt.Sprintf("README.md:%d: a <details> block: a terminal prints it in full; hints go in hints/task-N.md, answers in the solution", i+1))
		}
	}
	tasks, err := course.ReadmeTasks(readme)
	if err != nil {
		return append(problems, err.Error())
	}
	for i, mt := range ms.Tasks {
		if i >= len(tasks) {
			problems = append(problems, fmt.Sprintf("README.md has no \"### Task %d: %s\" (%s lists %d tasks, the README %d)", mt.Task, mt.Title, file, len(ms.Tasks), len(tasks)))
			break
		}
		tk := tasks[i]
		if tk.N != mt.Task || tk.Title != mt.Title {
			problems = append(problems, fmt.Sprintf("README.md:%d: \"### Task %d: %s\" where %s has \"### Task %d: %s\"", tk.Line, tk.N, tk.Title, file, mt.Task, mt.Title))
			continue
		}
		if cmd := mt.Command(); !strings.Contains(tk.Section, cmd) || strings.Count(tk.Section, "go test -run '") > 1 {
			problems = append(problems, fmt.Sprintf("README.md:%d: task %d's section must show its command `%s` (from %s), and no other go test -run: one command per task", tk.Line, mt.Task, cmd, file))
		}
		if hint := course.HintCommand(s, mt.Task); !strings.Contains(tk.Section, hint) {
			problems = append(problems, fmt.Sprintf("README.md:%d: task %d does not say how to ask for its hints: write Stuck? `%s`", tk.Line, mt.Task, hint))
		}
	}
	for _, tk := range tasks[min(len(tasks), len(ms.Tasks)):] {
		problems = append(problems, fmt.Sprintf("README.md:%d: \"### Task %d\" is not in %s", tk.Line, tk.N, file))
	}
	return problems
}

// firstH1 is the text of a Markdown text's first "# " heading.
func firstH1(md string) string {
	for _, line := range strings.Split(md, "\n") {
		if rest, ok := strings.CutPrefix(line, "# "); ok {
			return strings.TrimSpace(rest)
		}
	}
	return ""
}

// A todo is a "TODO(task N)" marker in a step's source; N is 0 when its
// task is not a number.
type todo struct {
	File string
	Line int
	N    int
}

var todoMarker = regexp.MustCompile(`TODO\(\s*task\s*([^)]*)\)`)

// scanTODOs finds the TODO(task N) markers in a file's source.
func scanTODOs(file, src string) []todo {
	var todos []todo
	for i, line := range strings.Split(src, "\n") {
		for _, m := range todoMarker.FindAllStringSubmatch(line, -1) {
			n, err := strconv.Atoi(strings.TrimSpace(m[1]))
			if err != nil || n < 1 {
				n = 0
			}
			todos = append(todos, todo{File: file, Line: i + 1, N: n})
		}
	}
	return todos
}

// sourceTODOs scans the non-test .go files of a folder (a step or its
// solution: one package) for TODO(task N) markers.
func sourceTODOs(dir string) ([]todo, error) {
	names, err := course.GoFiles(dir, false)
	if err != nil {
		return nil, err
	}
	var todos []todo
	for _, name := range names {
		src, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return nil, err
		}
		todos = append(todos, scanTODOs(name, string(src))...)
	}
	return todos, nil
}

// todoFileProblems proves that every TODO(task N) of a starter is in a file
// that task N lists, and that every file a task lists holds a TODO of it.
func todoFileProblems(ms *course.ManifestStep, todos []todo) []string {
	var problems []string
	byTask := map[int]course.ManifestTask{}
	for _, mt := range ms.Tasks {
		byTask[mt.Task] = mt
	}
	for _, td := range todos {
		mt, ok := byTask[td.N]
		switch {
		case td.N == 0:
			problems = append(problems, fmt.Sprintf("%s:%d: a TODO(task …) marker without a task number: write TODO(task N)", td.File, td.Line))
		case !ok:
			problems = append(problems, fmt.Sprintf("%s:%d: TODO(task %d), but %s has no task %d for %s", td.File, td.Line, td.N, course.ManifestFile, td.N, ms.Dir))
		case !slices.Contains(mt.Files, td.File):
			problems = append(problems, fmt.Sprintf("%s:%d: TODO(task %d) is in a file task %d does not list (%s lists %v)", td.File, td.Line, td.N, td.N, course.ManifestFile, mt.Files))
		}
	}
	for _, mt := range ms.Tasks {
		for _, f := range mt.Files {
			if !slices.ContainsFunc(todos, func(td todo) bool { return td.File == f && td.N == mt.Task }) {
				problems = append(problems, fmt.Sprintf("%s lists %s for task %d, but it holds no TODO(task %d)", course.ManifestFile, f, mt.Task, mt.Task))
			}
		}
	}
	return problems
}

// hintProblems checks a step's hints: one file with at least one hint for
// each task, and no file for a task the README does not have.
func hintProblems(s course.Step, tasks []course.Task) []string {
	var problems []string
	have := map[string]bool{}
	for _, tk := range tasks {
		name := filepath.FromSlash(tk.Hints)
		have[filepath.Base(name)] = true
		hints, err := s.ReadHints(tk)
		switch {
		case err != nil:
			problems = append(problems, fmt.Sprintf("task %d has no hints file %s: write one or more hints, gentlest first, separated by a line that holds only ---",
				tk.N, filepath.ToSlash(name)))
		case len(hints) == 0:
			problems = append(problems, fmt.Sprintf("%s holds no hint", filepath.ToSlash(name)))
		}
	}
	entries, _ := os.ReadDir(filepath.Join(s.Dir, "hints"))
	for _, e := range entries {
		if !have[e.Name()] {
			problems = append(problems, fmt.Sprintf("hints/%s is no task's hints file in %s", e.Name(), course.ManifestFile))
		}
	}
	return problems
}

// solutionTestProblems says what is wrong with the solution folder's files
// as the overlay reads them: the step's tests live in the step alone, and
// the solution has sources to put over it.
func solutionTestProblems(step course.Step, solutionDir string) ([]string, error) {
	var problems []string
	mine, err := course.GoFiles(step.Dir, true)
	if err != nil {
		return nil, err
	}
	if len(mine) == 0 {
		problems = append(problems, "the step has no *_test.go file")
	}
	theirs, err := course.GoFiles(solutionDir, true)
	if err != nil {
		return nil, err
	}
	for _, name := range theirs {
		problems = append(problems, fmt.Sprintf("solutions/%s/%s: a step's tests live in the step's folder alone (the solution is tested over it with go test -overlay): delete it, or move it to %s", step.Name, name, step.Name))
	}
	if src, err := course.GoFiles(solutionDir, false); err != nil || len(src) == 0 {
		problems = append(problems, fmt.Sprintf("solutions/%s has no .go file to put over the step", step.Name))
	}
	return problems, nil
}

// selectionProblems proves that every top-level test, example and fuzz test
// of a step (names, as go test -list gives them) is selected by exactly one
// task's run — a test belongs to one task; benchmarks need none — and that
// every task's run selects one of them.
func selectionProblems(tasks []course.Task, names []string) []string {
	var problems []string
	selects := map[int]bool{}
	for _, name := range names {
		if !strings.HasPrefix(name, "Test") && !strings.HasPrefix(name, "Example") && !strings.HasPrefix(name, "Fuzz") {
			continue
		}
		var by []string
		for _, tk := range tasks {
			if course.TaskOfTest([]course.Task{tk}, name) != 0 {
				by = append(by, strconv.Itoa(tk.N))
				selects[tk.N] = true
			}
		}
		switch len(by) {
		case 1:
		case 0:
			problems = append(problems, fmt.Sprintf("%s is selected by no task's run in %s: add it to one task's pattern, or rename it", name, course.ManifestFile))
		default:
			problems = append(problems, fmt.Sprintf("%s is selected by the runs of tasks %s: a test belongs to one task (anchor the patterns, e.g. '^TestMenu$')", name, strings.Join(by, " and ")))
		}
	}
	for _, tk := range tasks {
		if !selects[tk.N] {
			problems = append(problems, fmt.Sprintf("%s: task %d: go test -run '%s' selects no test (top-level tests: %s)", course.ManifestFile, tk.N, tk.Run, strings.Join(names, ", ")))
		}
	}
	return problems
}
