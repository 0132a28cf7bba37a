package course

// The integrity check's proof that a step's README and starter agree with
// the manifest. Pure functions of text, tested by agree_test.go.

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// ReadmeProblems proves that a step's README agrees with the manifest: its
// H1 is the step's title, it has no <details> block (a terminal prints it
// in full), and its "## Tasks" section has a "### Task N: <title>" for
// each task, in order, whose section shows the task's command,
// `go test -run '<run>' .` (and no other go test -run: one command per
// task), and how to ask for its hints.
func ReadmeProblems(s Step, ms *ManifestStep, readme string) []string {
	var problems []string
	if h1 := firstH1(readme); h1 != ms.Title {
		problems = append(problems, fmt.Sprintf("README.md's title is %q, %s says %q", h1, ManifestFile, ms.Title))
	}
	for i, line := range strings.Split(readme, "\n") {
		if strings.Contains(strings.ToLower(line), "<details") {
			problems = append(problems, fmt.Sprintf("README.md:%d: a <details> block: a terminal prints it in full; hints go in hints/task-N.md, answers in the solution", i+1))
		}
	}
	tasks, err := ReadmeTasks(readme)
	if err != nil {
		return append(problems, err.Error())
	}
	for i, mt := range ms.Tasks {
		if i >= len(tasks) {
			problems = append(problems, fmt.Sprintf("README.md has no \"### Task %d: %s\" (%s lists %d tasks, the README %d)", mt.Task, mt.Title, ManifestFile, len(ms.Tasks), len(tasks)))
			break
		}
		tk := tasks[i]
		if tk.N != mt.Task || tk.Title != mt.Title {
			problems = append(problems, fmt.Sprintf("README.md:%d: \"### Task %d: %s\" where %s has \"### Task %d: %s\"", tk.Line, tk.N, tk.Title, ManifestFile, mt.Task, mt.Title))
			continue
		}
		if cmd := mt.Command(); !strings.Contains(tk.Section, cmd) || strings.Count(tk.Section, "go test -run '") > 1 {
			problems = append(problems, fmt.Sprintf("README.md:%d: task %d's section must show its command `%s` (from %s), and no other go test -run: one command per task", tk.Line, mt.Task, cmd, ManifestFile))
		}
		if hint := HintCommand(s, mt.Task); !strings.Contains(tk.Section, hint) {
			problems = append(problems, fmt.Sprintf("README.md:%d: task %d does not say how to ask for its hints: write Stuck? `%s`", tk.Line, mt.Task, hint))
		}
	}
	for _, tk := range tasks[min(len(tasks), len(ms.Tasks)):] {
		problems = append(problems, fmt.Sprintf("README.md:%d: \"### Task %d\" is not in %s", tk.Line, tk.N, ManifestFile))
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

// TODOFileProblems proves that every TODO(task N) of a starter is in a file
// that task N lists, and that every file a task lists holds a TODO of it.
func TODOFileProblems(ms *ManifestStep, todos []Todo) []string {
	var problems []string
	byTask := map[int]ManifestTask{}
	for _, mt := range ms.Tasks {
		byTask[mt.Task] = mt
	}
	for _, td := range todos {
		mt, ok := byTask[td.N]
		switch {
		case td.N == 0:
			problems = append(problems, fmt.Sprintf("%s:%d: a TODO(task …) marker without a task number: write TODO(task N)", td.File, td.Line))
		case !ok:
			problems = append(problems, fmt.Sprintf("%s:%d: TODO(task %d), but %s has no task %d for %s", td.File, td.Line, td.N, ManifestFile, td.N, ms.Dir))
		case !slices.Contains(mt.Files, td.File):
			problems = append(problems, fmt.Sprintf("%s:%d: TODO(task %d) is in a file task %d does not list (%s lists %v)", td.File, td.Line, td.N, td.N, ManifestFile, mt.Files))
		}
	}
	for _, mt := range ms.Tasks {
		for _, f := range mt.Files {
			if !slices.ContainsFunc(todos, func(td Todo) bool { return td.File == f && td.N == mt.Task }) {
				problems = append(problems, fmt.Sprintf("%s lists %s for task %d, but it holds no TODO(task %d)", ManifestFile, f, mt.Task, mt.Task))
			}
		}
	}
	return problems
}

// FolderProblems proves that every step folder is in the manifest and every
// step of the manifest has its folder.
func FolderProblems(m *Manifest, steps []Step) []string {
	var problems []string
	for _, s := range steps {
		if _, ok := m.Step(s.Name); !ok {
			problems = append(problems, fmt.Sprintf("step folder %s is not in %s: list its tasks there", s.Name, ManifestFile))
		}
	}
	for _, ms := range m.Steps {
		if !slices.ContainsFunc(steps, func(s Step) bool { return s.Name == ms.Dir }) {
			problems = append(problems, fmt.Sprintf("%s lists %s, which is no step folder (%s) of the module", ManifestFile, ms.Dir, StepGlob))
		}
	}
	return problems
}

// SelectionProblems proves that every top-level test, example and fuzz test
// of a step (names, as go test -list gives them) is selected by exactly one
// task's run — a test belongs to one task; benchmarks need none — and that
// every task's run selects one of them.
func SelectionProblems(tasks []Task, names []string) []string {
	var problems []string
	selects := map[int]bool{}
	for _, name := range names {
		if !strings.HasPrefix(name, "Test") && !strings.HasPrefix(name, "Example") && !strings.HasPrefix(name, "Fuzz") {
			continue
		}
		var by []string
		for _, tk := range tasks {
			if TaskOfTest([]Task{tk}, name) != 0 {
				by = append(by, strconv.Itoa(tk.N))
				selects[tk.N] = true
			}
		}
		switch len(by) {
		case 1:
		case 0:
			problems = append(problems, fmt.Sprintf("%s is selected by no task's run in %s: add it to one task's pattern, or rename it", name, ManifestFile))
		default:
			problems = append(problems, fmt.Sprintf("%s is selected by the runs of tasks %s: a test belongs to one task (anchor the patterns, e.g. '^TestMenu$')", name, strings.Join(by, " and ")))
		}
	}
	for _, tk := range tasks {
		if !selects[tk.N] {
			problems = append(problems, fmt.Sprintf("%s: task %d: go test -run '%s' selects no test (top-level tests: %s)", ManifestFile, tk.N, tk.Run, strings.Join(names, ", ")))
		}
	}
	return problems
}
