package main

import (
	"context"
	"fmt"
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
		fmt.Fprintf(a.stderr, "workshop: %s: %v\n", step.Name, err)
		return exitRed
	}
	task := tasks[0] // the first task not done; the first when the tests did not run to the end
	if len(pos) == 2 {
		tk := a.taskArg(step, tasks, pos[1])
		if tk == nil {
			return exitUsage
		}
		task = *tk
	} else {
		sts, err := course.Statuses(ctx, a.g, a.root, []course.Step{step}, a.cache(), a.progress)
		if err != nil {
			fmt.Fprintf(a.stderr, "workshop: %v\n", err)
			return exitRed
		}
		if sts[0].TasksDone() { // no task's hint is the answer
			return a.allTasksPass(step, sts[0], len(tasks))
		}
		if res, ok := firstNotDone(sts[0]); ok {
			task = taskN(tasks, res.N)
		}
	}
	hints, err := step.ReadHints(task)
	if err != nil || len(hints) == 0 {
		fmt.Fprintf(a.stderr, "workshop: %s, task %d has no hints (%s): the finished code is in solutions/%s\n",
			step.Name, task.N, task.Hints, step.Name)
		return exitRed
	}
	w := a.stdout
	if flags["all"] != "" {
		for i := range hints {
			fmt.Fprint(w, hintText(step, task, hints, i))
		}
		fmt.Fprintf(w, "The finished code is in solutions/%s, with comments on why.\n", step.Name)
		return exitOK
	}
	i, text := a.nextHint(step, task, hints)
	fmt.Fprint(w, text)
	if i+1 < len(hints) {
		fmt.Fprintf(w, "Still stuck? Ask again for the next one: %s\n", course.HintCommand(step, task.N))
		return exitOK
	}
	fmt.Fprintf(w, "That was the last hint; the finished code is in solutions/%s, with comments on why.\n", step.Name)
	if len(hints) > 1 {
		fmt.Fprintf(w, "Every hint again: %s -all\n", course.HintCommand(step, task.N))
	}
	return exitOK
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

// nextHint returns the index of a task's next hint and its text with its
// header, and remembers it as shown (hint and watch's h key share this).
func (a *app) nextHint(step course.Step, task course.Task, hints []string) (int, string) {
	state, err := course.LoadHintState(a.stateDir)
	if err != nil {
		fmt.Fprintf(a.stderr, "workshop: the hints shown so far could not be read (%v): starting again from the first hint\n", err)
	}
	i := state.Next(step.Name, task.N, len(hints))
	if err := state.Save(); err != nil {
		fmt.Fprintf(a.stderr, "workshop: the hints shown are not remembered (%v)\n", err)
	}
	return i, hintText(step, task, hints, i)
}

func hintText(step course.Step, task course.Task, hints []string, i int) string {
	return fmt.Sprintf("%s, task %d: %s — hint %d of %d\n\n%s\n\n", step.Name, task.N, task.Title, i+1, len(hints), indentText(hints[i], "  "))
}

// allTasksPass answers a hint asked for a step whose tasks all pass: what is
// left is go vet's complaint, if any, and no task's hint is about that.
func (a *app) allTasksPass(step course.Step, st *course.StepStatus, n int) int {
	w := a.stdout
	if st.Vet != "" {
		a.vetFinding(w, step.Name+": ", step, st.Vet, true)
	} else {
		fmt.Fprintf(w, "%s is done: every task passes and go vet is clean. Nothing to hint at.\n", step.Name)
	}
	fmt.Fprintf(w, "For a task's hints anyway: go tool workshop hint %02d N (N from 1 to %d)\n", step.Num, n)
	return exitOK
}
