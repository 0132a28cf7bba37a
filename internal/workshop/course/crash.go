package course

// Whose crash is it? A panic, a synctest deadlock or a -timeout panic ends
// the test binary; go test -json says which test's output holds it, and the
// manifest says which task's run selects that test. Failing that (a crash
// outside any test), the stack names the step's files, and the manifest
// which task each file belongs to.

import (
	"fmt"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// CrashTask returns the task a crash of the run belongs to, or 0 when the
// run did not crash or nothing names a task.
func CrashTask(run *TestRun, step string, tasks []Task) int {
	line, test, ok := run.crash()
	if !ok {
		return 0
	}
	if strings.HasPrefix(line, "panic: test timed out") {
		if running := timedOut(run.Output, line); len(running) > 0 {
			test = running[0]
		}
	}
	if test != "" {
		if n := TaskOfTest(tasks, test); n != 0 {
			return n
		}
	}
	return taskOfStack(run.Output, line, step, tasks)
}

// TaskOfTest returns the first task whose run pattern selects the test (or
// the top-level test of a subtest), or 0.
func TaskOfTest(tasks []Task, test string) int {
	top, _, _ := strings.Cut(test, "/")
	for _, tk := range tasks {
		for _, p := range tk.Patterns {
			first, _, _ := strings.Cut(p, "/")
			if re, err := regexp.Compile(first); err == nil && re.MatchString(top) {
				return tk.N
			}
		}
	}
	return 0
}

// timedOut lists the tests a -timeout panic says were running.
func timedOut(output []string, line string) []string {
	i := slices.Index(output, line)
	if i < 0 || i+1 >= len(output) || strings.TrimSpace(output[i+1]) != "running tests:" {
		return nil
	}
	var names []string
	for _, l := range output[i+2:] {
		name, _, ok := strings.Cut(strings.TrimSpace(l), " (")
		if !ok || name == "" {
			break
		}
		names = append(names, name)
	}
	return names
}

// taskOfStack returns the task of the first of the step's files that the
// crash's stacks name, topmost frame first.
func taskOfStack(output []string, line, step string, tasks []Task) int {
	i := max(slices.Index(output, line), 0)
	for _, l := range output[i:] {
		file, _, ok := strings.Cut(strings.TrimSpace(l), ":")
		if !ok || !strings.Contains(file, "/"+step+"/") {
			continue
		}
		name := path.Base(file)
		for _, tk := range tasks {
			if slices.Contains(tk.Files, name) {
				return tk.N
			}
		}
	}
	return 0
}

// SelectionProblems proves that every top-level test, example and fuzz test
// of a step (names, as go test -list gives them) is selected by exactly one
// task's run: a test belongs to one task. Benchmarks need no task.
func SelectionProblems(tasks []Task, names []string) []string {
	var problems []string
	for _, name := range names {
		if !strings.HasPrefix(name, "Test") && !strings.HasPrefix(name, "Example") && !strings.HasPrefix(name, "Fuzz") {
			continue
		}
		var by []string
		for _, tk := range tasks {
			if TaskOfTest([]Task{tk}, name) != 0 {
				by = append(by, strconv.Itoa(tk.N))
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
	return problems
}
