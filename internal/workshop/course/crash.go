package course

// Whose failure is it? A panic, a synctest deadlock or a -timeout panic ends
// the test binary, and a data race report fails whichever test was running:
// the stacks name the step's files, and the manifest which task each file
// belongs to (its files). go test -json says which test's output holds the
// report, and the manifest which task's run selects that test: that task
// decides between tasks that share a file, and when no frame names a file
// of a task.

import (
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/icecreamcorp/go-cancellation-workshop/internal/gotest"
)

// CrashTask returns the task a crash of the run belongs to, or 0 when the
// run did not crash or nothing names a task.
func CrashTask(run *gotest.TestRun, step string, tasks []Task) int {
	line, test, ok := run.Crash()
	if !ok {
		return 0
	}
	if strings.HasPrefix(line, "panic: test timed out") {
		if running := timedOut(run.Output, line); len(running) > 0 {
			test = running[0]
		}
	}
	i := max(slices.Index(run.Output, line), 0)
	return blame(run.Output[i:], step, tasks, test)
}

// RaceTask returns the task the run's first data race report belongs to,
// or 0 when there is none (or nothing names a task).
func RaceTask(run *gotest.TestRun, step string, tasks []Task) int {
	report, test := raceReport(run)
	if len(report) == 0 {
		return 0
	}
	return blame(report, step, tasks, test)
}

// RaceReport is the run's first data race report, "" when there is none.
func RaceReport(run *gotest.TestRun) string {
	report, _ := raceReport(run)
	return strings.Join(report, "\n")
}

const raceWarning = "WARNING: DATA RACE"

// raceReport returns the lines of the run's first race report, from its
// warning to the closing "=====" line, and the test whose output holds it.
func raceReport(run *gotest.TestRun) (report []string, test string) {
	if run == nil {
		return nil, ""
	}
	for _, name := range run.TestsWithOutput() {
		lines := run.ByTest[name]
		i := slices.IndexFunc(lines, func(l string) bool { return strings.TrimSpace(l) == raceWarning })
		if i < 0 {
			continue
		}
		for _, l := range lines[i:] {
			if len(report) > 0 && strings.HasPrefix(strings.TrimSpace(l), "=====") {
				break
			}
			report = append(report, l)
		}
		return report, name
	}
	return nil, ""
}

// goFrame matches a stack frame's file line: "\t/path/to/work.go:17 +0x3f"
// (on Windows too: "C:/path/work.go:17").
var goFrame = regexp.MustCompile(`^\s*(.+\.go):\d+`)

// blame returns the task a crash's stacks or a race report (lines) belongs
// to: the task whose files (course.yaml's files) the step's frames name,
// topmost first — the task of the test it happened in (test) when that task
// owns the file too, or when a file belongs to several tasks — else the
// test's task; 0 when neither names one.
func blame(lines []string, step string, tasks []Task, test string) int {
	byTest := 0
	if test != "" {
		byTest = TaskOfTest(tasks, test)
	}
	shared := 0 // the first task of a file several tasks share
	for _, l := range lines {
		m := goFrame.FindStringSubmatch(l)
		if m == nil || !strings.Contains(m[1], "/"+step+"/") {
			continue
		}
		name := path.Base(m[1])
		var owners []int
		for _, tk := range tasks {
			if slices.Contains(tk.Files, name) {
				owners = append(owners, tk.N)
			}
		}
		switch {
		case len(owners) == 0:
			continue
		case slices.Contains(owners, byTest):
			return byTest
		case len(owners) == 1:
			return owners[0]
		case shared == 0:
			shared = owners[0]
		}
	}
	if byTest != 0 {
		return byTest
	}
	return shared
}

// TaskOfTest returns the first task whose run selects the test (or the
// top-level test of a subtest), or 0. A run names no subtest (course.yaml
// refuses it).
func TaskOfTest(tasks []Task, test string) int {
	top, _, _ := strings.Cut(test, "/")
	for _, tk := range tasks {
		if ok, _ := regexp.MatchString(tk.Run, top); ok {
			return tk.N
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
