package main

import (
	"context"
	"fmt"
	"io"
	"slices"

	"github.com/icecreamcorp/go-cancellation-workshop/internal/workshop/course"
)

// hint shows the next hint of a task, one more each time.
func (a *app) hint(ctx context.Context, args []string) int {
	flags, pos, step, ok := a.stepArgs(ctx, args, []string{"all"}, 2, "hint [STEP] [TASK] [-all]")
	if !ok {
		return exitUsage
	}
	tasks, err := step.ReadTasks()
	if err == nil && len(tasks) == 0 {
		err = fmt.Errorf("no tasks in %s", course.ManifestFile)
	}
	if err != nil {
		return a.failed("%s: %v", step.Name, err)
	}
	var st *course.StepStatus
	n := 0
	if len(pos) == 2 {
		if n, ok = a.taskArg(step, tasks, pos[1]); !ok {
			return exitUsage
		}
	} else {
		sts, err := course.Statuses(ctx, a.g, a.root, []course.Step{step}, a.cache(), a.progress, nil)
		if err != nil {
			return a.failed("%v", err)
		}
		st = sts[0]
	}
	if err := a.showHint(a.stdout, step, st, tasks, n, flags["all"] != ""); err != nil {
		return a.failed("%v", err)
	}
	return exitOK
}

// showHint shows task n's next hint (every hint: all), and remembers it as
// shown; hint and watch's h key share it. For n 0 it is the first task not
// done (the first when the tests did not run to the end) or, once every
// task passes, what is left: go vet's finding, which no task's hint is about.
func (a *app) showHint(w io.Writer, step course.Step, st *course.StepStatus, tasks []course.Task, n int, all bool) error {
	if n == 0 && st.TasksDone() {
		if st.Vet != "" {
			a.vetFinding(w, step.Name+": ", step, st.Vet, true)
		} else {
			fmt.Fprintf(w, "%s is done: every task passes and go vet is clean. Nothing to hint at.\n", step.Name)
		}
		fmt.Fprintf(w, "For a task's hints anyway: go tool workshop hint %02d N (N from 1 to %d)\n", step.Num, len(tasks))
		return nil
	}
	if n == 0 && len(tasks) > 0 {
		n = tasks[0].N
		if res, ok := firstNotDone(st); ok {
			n = res.N
		}
	}
	tk := taskN(tasks, n)
	hints, err := step.ReadHints(tk)
	if err != nil || len(hints) == 0 {
		return fmt.Errorf("%s, task %d has no hints (%s): the finished code is in solutions/%s", step.Name, tk.N, tk.Hints, step.Name)
	}
	if all {
		for i := range hints {
			fmt.Fprint(w, hintText(step, tk, hints, i))
		}
		fmt.Fprintf(w, "The finished code is in solutions/%s, with comments on why.\n", step.Name)
		return nil
	}
	state, err := course.LoadHintState(a.stateDir)
	if err != nil {
		fmt.Fprintf(a.stderr, "workshop: the hints shown so far could not be read (%v): starting again from the first hint\n", err)
	}
	i := state.Next(step.Name, tk.N, len(hints))
	if err := state.Save(); err != nil {
		fmt.Fprintf(a.stderr, "workshop: the hints shown are not remembered (%v)\n", err)
	}
	fmt.Fprint(w, hintText(step, tk, hints, i))
	if i+1 < len(hints) {
		fmt.Fprintf(w, "Still stuck? Ask again for the next one: %s\n", course.HintCommand(step, tk.N))
		return nil
	}
	fmt.Fprintf(w, "That was the last hint; the finished code is in solutions/%s, with comments on why.\n", step.Name)
	if len(hints) > 1 {
		fmt.Fprintf(w, "Every hint again: %s -all\n", course.HintCommand(step, tk.N))
	}
	return nil
}

func hintText(step course.Step, task course.Task, hints []string, i int) string {
	return fmt.Sprintf("%s, task %d: %s — hint %d of %d\n\n%s\n\n", step.Name, task.N, task.Title, i+1, len(hints), indentText(hints[i], "  "))
}

// taskN is the task numbered n; a task of that number alone when there is
// none (course.yaml changed since its tests ran).
func taskN(tasks []course.Task, n int) course.Task {
	if i := slices.IndexFunc(tasks, func(t course.Task) bool { return t.N == n }); i >= 0 {
		return tasks[i]
	}
	return course.Task{N: n}
}

// firstNotDone is the first task of a step's status not done.
func firstNotDone(st *course.StepStatus) (course.TaskResult, bool) {
	i := slices.IndexFunc(st.Tasks, func(r course.TaskResult) bool { return !r.Done })
	if i < 0 {
		return course.TaskResult{}, false
	}
	return st.Tasks[i], true
}
