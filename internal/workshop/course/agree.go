package course

// The integrity check's proof that a step's README and starter agree with
// the manifest. Pure functions of text, tested by agree_test.go.

import (
	"fmt"
	"slices"
	"strings"
)

// ReadmeProblems proves that a README agrees with the manifest's step: its
// H1 is the step's title, its "## Tasks" section has a "### Task N: <title>"
// for each task, in order (CommandProblems checks their commands).
func ReadmeProblems(ms *ManifestStep, readme string) []string {
	var problems []string
	if h1 := firstH1(readme); h1 != ms.Title {
		problems = append(problems, fmt.Sprintf("README.md's title is %q, %s says %q", h1, ManifestFile, ms.Title))
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

// CommandProblems proves that each task's README section shows its command,
// `go test -run '<run>' .`, and no other of that form: one command per task.
// A task whose heading is missing is ReadmeProblems' to report.
func CommandProblems(ms *ManifestStep, readme string) []string {
	tasks, err := ReadmeTasks(readme)
	if err != nil {
		return nil
	}
	var problems []string
	for _, mt := range ms.Tasks {
		i := slices.IndexFunc(tasks, func(tk Task) bool { return tk.N == mt.Task })
		if i < 0 {
			continue
		}
		tk := tasks[i]
		if !strings.Contains(tk.Section, mt.Command()) {
			problems = append(problems, fmt.Sprintf("README.md:%d: task %d's section does not show its command `%s` (from %s)", tk.Line, mt.Task, mt.Command(), ManifestFile))
		}
		for _, c := range tk.Commands {
			if c != mt.Command() && strings.HasPrefix(c, "go test -run") && strings.HasSuffix(c, " .") {
				problems = append(problems, fmt.Sprintf("README.md:%d: task %d shows `%s` besides its command `%s`: one command per task", tk.Line, mt.Task, c, mt.Command()))
			}
		}
	}
	return problems
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
