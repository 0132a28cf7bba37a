package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/icecreamcorp/go-cancellation-workshop/internal/workshop/course"
)

// overview shows every step and task, ✓ or ✗, and then the next task.
func (a *app) overview(ctx context.Context, args []string) int {
	if len(args) > 0 {
		return a.usageError("go tool workshop takes no arguments (did you mean go tool workshop check %s?)", args[0])
	}
	w := a.stdout
	fmt.Fprintln(w, "Ice Cream Corp: cancellation in Go — where you are")
	fmt.Fprintln(w)
	done, total := 0, 0
	width := 0
	for _, s := range a.steps {
		width = max(width, len(s.Name))
	}
	// Each step's line as soon as its tests end (a first run is long).
	sts, err := course.Statuses(ctx, a.g, a.root, a.steps, a.cache(), a.progress, func(i int, st *course.StepStatus) {
		var marks []string
		for _, t := range st.Tasks {
			marks = append(marks, fmt.Sprintf("%s%d", mark(t.Done), t.N))
		}
		done += st.Done()
		total += len(st.Tasks)
		line := fmt.Sprintf("  %-*s  %s %d/%d  %s", width, a.steps[i].Name, bar(st.Done(), len(st.Tasks), 8), st.Done(), len(st.Tasks), strings.Join(marks, " "))
		switch {
		case st.Problem != "":
			first, _, _ := strings.Cut(st.Problem, "\n")
			line += "  — " + strings.TrimSuffix(first, ":")
		case st.TasksDone() && st.Vet != "":
			line += fmt.Sprintf("  — tests ✓, vet ✗: go tool workshop check %02d", a.steps[i].Num)
		}
		fmt.Fprintln(w, strings.TrimRight(line, " "))
	})
	if err != nil {
		return a.failed("%v", err)
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "  %s %d of %d tasks\n\n", bar(done, total, 30), done, total)

	if i := a.working(ctx, sts); !sts[i].Finished() {
		a.showNext(a.steps[i], sts[i])
		return exitOK
	}
	fmt.Fprintln(w, "Every task of every step is done. Compare your code with solutions/, and read each step's")
	fmt.Fprintln(w, `"Going further".`)
	return exitOK
}

// showNext prints the next task of a step: its README section, and the
// commands to check it and to ask for a hint.
func (a *app) showNext(step course.Step, st *course.StepStatus) {
	w := a.stdout
	if st.Problem != "" { // a course.yaml that cannot be read too: the step then has no tasks
		fmt.Fprintf(w, "First, %s's tests must run — %s\n\n", step.Name, st.Problem)
	}
	if st.TasksDone() && st.Vet != "" {
		a.vetFinding(w, "Next: "+step.Name+" — ", step, st.Vet, true)
		return
	}
	res, ok := firstNotDone(st)
	if !ok {
		fmt.Fprintf(w, "Next: %s: go tool workshop check %02d\n", step.Name, step.Num)
		return
	}
	if st.Done() == 0 && res.N == 1 {
		fmt.Fprintf(w, "Next: %s — read its README.md first (the story, the goal), then task 1.\n\n", step.Name)
	} else {
		fmt.Fprintf(w, "Next: %s, task %d.\n\n", step.Name, res.N)
	}
	tasks, _ := step.ReadTasks() // st has tasks: they were read
	tk := taskN(tasks, res.N)
	fmt.Fprintln(w, indentText(taskText(tk), "  "))
	fmt.Fprintln(w)
	if tk.Command != "" {
		fmt.Fprintf(w, "Check it:  %s\n", a.command(step, tk.Command))
	}
	fmt.Fprintf(w, "      or:  go tool workshop check %02d   (go vet, then every test of the step with -race)\n", step.Num)
	fmt.Fprintf(w, "Stuck?     %s\n", course.HintCommand(step, res.N))
}

func mark(done bool) string {
	if done {
		return "✓"
	}
	return "✗"
}

// bar draws done/total as a bar of width cells.
func bar(done, total, width int) string {
	filled := 0
	if total > 0 {
		filled = done * width / total
	}
	return "[" + strings.Repeat("█", filled) + strings.Repeat("░", width-filled) + "]"
}

func indentText(s, prefix string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = prefix + l
		}
	}
	return strings.Join(lines, "\n")
}
