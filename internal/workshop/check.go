package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/icecreamcorp/go-cancellation-workshop/internal/gotest"
	"github.com/icecreamcorp/go-cancellation-workshop/internal/workshop/course"
)

// check runs go vet and the step's tests with -race, and shows the first
// failure.
func (a *app) check(ctx context.Context, args []string) int {
	_, _, step, ok := a.stepArgs(ctx, args, nil, 1, "check [STEP] (it runs go vet, then go test -race where it can, by itself)")
	if !ok {
		return exitUsage
	}
	fmt.Fprintf(a.stdout, "Checking %s: go vet (every analyzer, lostcancel among them), then every test with -race…\n", step.Name)
	v, err := a.fullRun(ctx, step)
	if err != nil {
		return a.failed("%v", err)
	}
	return a.report(a.stdout, v)
}

// A verdict is what one run of a step's tests said: the full run (go vet,
// then every test with -race) or the quick one (the tests of the task in
// progress alone, without vet or -race).
type verdict struct {
	step     course.Step
	tasks    []course.Task
	st       *course.StepStatus
	raceNote string // why -race was left out
	quick    bool
}

func (a *app) fullRun(ctx context.Context, step course.Step) (*verdict, error) {
	st, raceNote, err := course.CheckStep(ctx, a.g, a.root, step, a.cache())
	if err != nil {
		return nil, err
	}
	tasks, _ := step.ReadTasks()
	return &verdict{step: step, tasks: tasks, st: st, raceNote: raceNote}, nil
}

// fromWD rewrites the file paths that begin go vet's lines (relative to the
// module's root, where it runs) relative to the folder the runner was
// started in, so that a learner inside a step can open them as printed.
func (a *app) fromWD(out string) string {
	lines := strings.Split(out, "\n")
	for i, line := range lines {
		file, rest, ok := strings.Cut(line, ":")
		abs := filepath.Join(a.root, file) // not a file for an absolute path, nor for a line of text
		if _, err := os.Stat(abs); ok && file != "" && err == nil {
			rel, _ := filepath.Rel(a.wd, abs) // both absolute, in the module
			lines[i] = rel + ":" + rest
		}
	}
	return strings.Join(lines, "\n")
}

// notRun reports whether none of a task's tests started because the test
// binary crashed or hung first: they neither passed nor failed.
func (v *verdict) notRun(res course.TaskResult) bool {
	st := v.st
	crashed := strings.HasPrefix(st.Problem, "the tests crashed") || strings.HasPrefix(st.Problem, "the tests hung")
	if !crashed || res.Done || res.N == st.CrashTask || len(res.Tests) == 0 {
		return false
	}
	return !slices.ContainsFunc(res.Tests, func(name string) bool { return slices.Contains(st.Run.Ran, name) })
}

// failing is the task whose failure to show first: the one a crash or a
// race report belongs to, else the first task not done.
func (v *verdict) failing() (course.TaskResult, bool) {
	for _, n := range []int{v.st.CrashTask, v.st.RaceTask} {
		for _, res := range v.st.Tasks {
			if n != 0 && res.N == n {
				return res, true
			}
		}
	}
	if v.st.Problem != "" {
		return course.TaskResult{}, false // a crash no task's files or tests name
	}
	return firstNotDone(v.st)
}

// report writes a full run's verdict as check shows it, and returns check's
// exit code.
func (a *app) report(w io.Writer, v *verdict) int {
	step, st := v.step, v.st
	if course.VetCompileError(st.Vet) {
		fmt.Fprintf(w, "\n✗ go vet ./%s failed — fix this first (the step does not compile):\n%s\n",
			step.Name, indentText(limitLines(a.fromWD(st.Vet), 20), "    "))
		return exitRed
	}
	if v.raceNote != "" {
		fmt.Fprintf(w, "%s: go vet ./%s, go test ./%s — without -race: the race detector is not available here (%s)\n", step.Name, step.Name, step.Name, v.raceNote)
	} else {
		fmt.Fprintf(w, "%s: go vet ./%s, go test -race ./%s\n", step.Name, step.Name, step.Name)
	}
	fmt.Fprintln(w)
	for _, res := range st.Tasks {
		if v.notRun(res) {
			fmt.Fprintf(w, "  ? task %d  %s (not run: the test binary stopped before its tests)\n", res.N, taskN(v.tasks, res.N).Title)
			continue
		}
		fmt.Fprintf(w, "  %s task %d  %s\n", mark(res.Done), res.N, taskN(v.tasks, res.N).Title)
	}
	fmt.Fprintln(w)
	if st.Finished() {
		fmt.Fprintf(w, "✓ %s is done: vet clean, every test green%s. Compare with solutions/%s, then: go tool workshop\n",
			step.Name, map[bool]string{true: "", false: " under -race"}[v.raceNote != ""], step.Name)
		return exitOK
	}
	if st.Vet != "" {
		a.vetFinding(w, "✗ ", step, st.Vet, st.TasksDone())
		return exitRed
	}
	res, ok := v.failing()
	if !ok {
		if st.Problem != "" {
			fmt.Fprintf(w, "✗ %s\n", indentText(st.Problem, "  ")[2:])
		}
		return exitRed
	}
	a.failure(w, v, res, 24)
	return exitRed
}

// vetFinding shows go vet's finding in a step that compiles, after lead
// (where the step stands), and how to check the fix.
func (a *app) vetFinding(w io.Writer, lead string, step course.Step, vet string, tasksDone bool) {
	if tasksDone {
		fmt.Fprintf(w, "%severy task's tests pass, but go vet does not (tests ✓, vet ✗): it finds bugs the tests\n", lead)
		fmt.Fprintf(w, "may not catch (a lost cancel, a copied lock), and no task's hint is about them. What it says:\n\n")
	} else {
		fmt.Fprintf(w, "%sgo vet found a bug the tests may not catch — fix this first:\n\n", lead)
	}
	fmt.Fprintf(w, "%s\n\n", indentText(limitLines(a.fromWD(vet), 12), "  "))
	fmt.Fprintf(w, "Run it alone:  %s\n", a.command(step, "go vet ."))
	fmt.Fprintf(w, "Fix it, then:  go tool workshop check %02d\n", step.Num)
}

// failure shows a task's failure: its first failing test's output (a
// crash's or a race's report, when it is theirs), its command and its hint.
func (a *app) failure(w io.Writer, v *verdict, res course.TaskResult, lines int) {
	st, step := v.st, v.step
	tk := taskN(v.tasks, res.N)
	fmt.Fprintf(w, "First failure — task %d: %s\n\n", res.N, tk.Title)
	race := false
	raceText := func(text string) {
		race = true
		fmt.Fprintln(w, "  A data race: two goroutines touch the same memory, at least one writes, and nothing")
		fmt.Fprintln(w, "  orders them (a mutex, a channel, an atomic). The two stacks say where:")
		fmt.Fprintln(w)
		fmt.Fprintln(w, indentText(limitLines(text, lines), "  "))
	}
	switch {
	case st.CrashTask == res.N:
		fmt.Fprintln(w, indentText(st.Problem, "  "))
	case st.RaceTask == res.N:
		raceText(course.RaceReport(st.Run))
	case len(res.Failed) > 0:
		text := failureText(st.Run, res.Failed[0])
		if strings.Contains(text, "WARNING: DATA RACE") {
			raceText(text)
			break
		}
		fmt.Fprintln(w, indentText(limitLines(text, lines), "  "))
	case len(res.Tests) == 0:
		fmt.Fprintf(w, "  its command selects no test: is course.yaml's run pattern right?\n")
	default:
		fmt.Fprintf(w, "  its tests did not pass (%s)\n", strings.Join(res.Tests, ", "))
	}
	fmt.Fprintln(w)
	if c := tk.Command; c != "" {
		if race {
			c = withRace(c)
		}
		fmt.Fprintf(w, "Run it alone:  %s\n", a.command(step, c))
	}
	fmt.Fprintf(w, "Stuck?         %s\n", course.HintCommand(step, res.N))
}

// withRace adds -race to a go test command that does not have it yet.
func withRace(cmd string) string {
	if !strings.HasPrefix(cmd, "go test ") || slices.Contains(strings.Fields(cmd), "-race") {
		return cmd
	}
	return strings.Replace(cmd, "go test", "go test -race", 1)
}

// failureText is what a failed test printed, without go test's "=== RUN"
// chatter.
func failureText(run *gotest.TestRun, test string) string {
	var out []string
	for _, l := range run.ByTest[test] {
		if !strings.HasPrefix(strings.TrimSpace(l), "=== ") {
			out = append(out, strings.TrimRight(l, " "))
		}
	}
	return strings.Trim(strings.Join(out, "\n"), "\n")
}

func limitLines(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) <= n {
		return s
	}
	return strings.Join(lines[:n], "\n") + fmt.Sprintf("\n[… %d more lines: run the command below to see them all]", len(lines)-n)
}
