package course

// Whose crash is it? A panic, a synctest deadlock or a -timeout panic ends
// the test binary; go test -json says which test's output holds it, and the
// manifest says which task's run selects that test. Failing that (a crash
// outside any test), the stack names the step's files, and the manifest
// which task each file belongs to.

import (
	"path"
	"regexp"
	"slices"
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
