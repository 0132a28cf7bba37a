package main

import (
	"context"
	"fmt"
	"strconv"

	"github.com/icecreamcorp/go-cancellation-workshop/internal/workshop/course"
)

// hint shows the next hint of a task, one more each time.
func (a *app) hint(ctx context.Context, args []string) int {
	flags, pos, err := splitFlags(args, []string{"all"}, nil)
	if err != nil || len(pos) > 2 {
		return a.usageError("usage: go tool workshop hint [STEP] [TASK] [-all]")
	}
	stepArg := ""
	if len(pos) > 0 {
		stepArg = pos[0]
	}
	step, err := a.stepArg(ctx, stepArg)
	if err != nil {
		return a.usageError("%v", err)
	}
	tasks, err := step.ReadTasks()
	if err != nil {
		fmt.Fprintf(a.stderr, "workshop: %s: %v\n", step.Name, err)
		return exitRed
	}
	var task *course.Task
	if len(pos) == 2 {
		n, err := strconv.Atoi(pos[1])
		for i := range tasks {
			if err == nil && tasks[i].N == n {
				task = &tasks[i]
			}
		}
		if task == nil {
			return a.usageError("%s has no task %q: its tasks are 1 to %d", step.Name, pos[1], len(tasks))
		}
	} else {
		var st *course.StepStatus
		task, st, err = a.nextTask(ctx, step, tasks)
		if err != nil {
			fmt.Fprintf(a.stderr, "workshop: %v\n", err)
			return exitRed
		}
		if task == nil { // every task passes: no task's hint is the answer
			return a.allTasksPass(step, st, len(tasks))
		}
	}
	hints, err := step.ReadHints(*task)
	if err != nil || len(hints) == 0 {
		fmt.Fprintf(a.stderr, "workshop: %s, task %d has no hints (%s): the finished code is in solutions/%s\n",
			step.Name, task.N, task.Hints, step.Name)
		return exitRed
	}
	w := a.stdout
	header := fmt.Sprintf("%s, task %d: %s", step.Name, task.N, task.Title)
	if flags["all"] != "" {
		for i, h := range hints {
			fmt.Fprintf(w, "%s — hint %d of %d\n\n%s\n\n", header, i+1, len(hints), indentText(h, "  "))
		}
		fmt.Fprintf(w, "The finished code is in solutions/%s, with comments on why.\n", step.Name)
		return exitOK
	}
	i, text := a.nextHint(step, *task, hints)
	fmt.Fprint(w, text)
	if i+1 < len(hints) {
		fmt.Fprintf(w, "Still stuck? Ask again for the next one: %s\n", course.HintCommand(step, task.N))
	} else {
		fmt.Fprintf(w, "That was the last hint; the finished code is in solutions/%s, with comments on why.\n", step.Name)
		if len(hints) > 1 {
			fmt.Fprintf(w, "Every hint again: %s -all\n", course.HintCommand(step, task.N))
		}
	}
	return exitOK
}

// nextHint returns the index of a task's next hint and its text with its
// header, and remembers it as shown (hint and watch's h key share this).
func (a *app) nextHint(step course.Step, task course.Task, hints []string) (int, string) {
	state, err := course.LoadHintState(a.hintDir)
	if err != nil {
		fmt.Fprintf(a.stderr, "workshop: the hints shown so far could not be read (%v): starting again from the first hint\n", err)
	}
	i := state.Next(step.Name, task.N, len(hints))
	if err := state.Save(); err != nil {
		fmt.Fprintf(a.stderr, "workshop: the hints shown are not remembered (%v)\n", err)
	}
	header := fmt.Sprintf("%s, task %d: %s", step.Name, task.N, task.Title)
	return i, fmt.Sprintf("%s — hint %d of %d\n\n%s\n\n", header, i+1, len(hints), indentText(hints[i], "  "))
}

// nextTask is the step's first task not done, with the step's status; nil
// when every task passes.
func (a *app) nextTask(ctx context.Context, step course.Step, tasks []course.Task) (*course.Task, *course.StepStatus, error) {
	if len(tasks) == 0 {
		return nil, nil, fmt.Errorf("%s has no tasks in %s", step.Name, course.ManifestFile)
	}
	sts, err := course.Statuses(ctx, a.g, a.root, []course.Step{step}, a.cache(), a.progress)
	if err != nil {
		return nil, nil, err
	}
	st := sts[0]
	if st.TasksDone() {
		return nil, st, nil
	}
	for _, res := range st.Tasks {
		if !res.Done {
			for i := range tasks {
				if tasks[i].N == res.N {
					return &tasks[i], st, nil
				}
			}
		}
	}
	return &tasks[0], st, nil // the tests did not run to the end: start at the start
}

// allTasksPass answers a hint asked for a step whose tasks all pass: what is
// left is go vet's complaint, if any, and no task's hint is about that.
func (a *app) allTasksPass(step course.Step, st *course.StepStatus, n int) int {
	w := a.stdout
	if st.Vet != "" {
		fmt.Fprintf(w, "%s: every task's tests pass, but go vet does not — and no task's hint is about that.\n", step.Name)
		fmt.Fprintf(w, "What it says:\n\n%s\n\n", indentText(limitLines(st.Vet, 12), "  "))
		fmt.Fprintf(w, "Fix it, then:  go tool workshop check %02d\n", step.Num)
		fmt.Fprintf(w, "For a task's hints anyway: go tool workshop hint %02d N (N from 1 to %d)\n", step.Num, n)
		return exitOK
	}
	fmt.Fprintf(w, "%s is done: every task passes and go vet is clean. Nothing to hint at.\n", step.Name)
	fmt.Fprintf(w, "For a task's hints anyway: go tool workshop hint %02d N (N from 1 to %d)\n", step.Num, n)
	return exitOK
}
