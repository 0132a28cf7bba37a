package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/icecreamcorp/go-cancellation-workshop/internal/workshop/course"
)

// mistakes shows a green task's catalog: each wrong answer, why it is
// wrong, its diff, and the message the tests give it (the mutant is run).
// A task not yet green is refused: the catalog shows its answer.
func (a *app) mistakes(ctx context.Context, args []string) int {
	_, pos, step, ok := a.stepArgs(ctx, args, nil, 2, "mistakes [STEP] [TASK]")
	if !ok {
		return exitUsage
	}
	tasks, err := step.ReadTasks()
	if err != nil {
		return a.failed("%s: %v", step.Name, err)
	}
	want := 0
	if len(pos) == 2 {
		if want, ok = a.taskArg(step, tasks, pos[1]); !ok {
			return exitUsage
		}
	}
	entries, ok, err := course.ReadCatalog(a.root, step)
	if err != nil || !ok {
		fmt.Fprintf(a.stdout, "%s has no mistake catalog yet (solutions/%s/%s).\n", step.Name, step.Name, course.CatalogFile)
		return exitOK
	}
	sts, err := course.Statuses(ctx, a.g, a.root, []course.Step{step}, a.cache(), a.progress, nil)
	if err != nil {
		return a.failed("%v", err)
	}
	green := map[int]bool{}
	for _, res := range sts[0].Tasks {
		green[res.N] = res.Done
	}
	if want != 0 && !green[want] {
		fmt.Fprintf(a.stdout, "Finish task %d first: the catalog shows its answer. Check it: go tool workshop check %02d\n", want, step.Num)
		return exitRed
	}
	shown := 0
	for _, tk := range tasks {
		if (want != 0 && tk.N != want) || !green[tk.N] {
			continue
		}
		var mine []course.Mistake
		for _, m := range entries {
			if m.Task == tk.N {
				mine = append(mine, m)
			}
		}
		a.showMistakes(ctx, step, tk, mine)
		shown++
	}
	if shown == 0 {
		fmt.Fprintf(a.stdout, "No task of %s is green yet: the catalog shows each task's answer once its tests pass.\n", step.Name)
		fmt.Fprintf(a.stdout, "Check where you are: go tool workshop check %02d\n", step.Num)
	}
	return exitOK
}

// showMistakes runs a task's entries and shows each with its message.
func (a *app) showMistakes(ctx context.Context, step course.Step, tk course.Task, entries []course.Mistake) {
	w := a.stdout
	fmt.Fprintf(w, "%s, task %d: %s — %d wrong answers, and what the tests say to each\n\n", step.Name, tk.N, tk.Title, len(entries))
	if len(entries) == 0 {
		fmt.Fprintf(w, "  (none in the catalog for this task)\n\n")
		return
	}
	a.progress(fmt.Sprintf("running the tests of task %d on each wrong answer (%d at a time)", tk.N, course.MutantsAtOnce))
	verdicts := course.ProveMistakes(ctx, a.g, a.root, step, []course.Task{tk}, entries, nil)
	for i, v := range verdicts {
		m := v.Mistake
		tags := ""
		if len(m.Tags) > 0 {
			tags = " [" + strings.Join(m.Tags, "] [") + "]"
		}
		fmt.Fprintf(w, "%d. %s%s\n", i+1, m.Title, tags)
		if m.Prose != "" {
			fmt.Fprintln(w, indentText(m.Prose, "   "))
		}
		fmt.Fprintf(w, "\n%s\n\n", indentText(m.Diff, "     "))
		switch {
		case !v.Rejected:
			fmt.Fprintf(w, "   The tests do not reject it today (%s)\n\n", indentText(v.Problem, "   ")[3:])
		case m.Has("vet"):
			fmt.Fprintf(w, "   go vet says:\n%s\n\n", indentText(v.Message, "     "))
		case m.Has("race"):
			fmt.Fprintf(w, "   The tests say, under -race:\n%s\n\n", indentText(v.Message, "     "))
		default:
			fmt.Fprintf(w, "   The tests say:\n%s\n\n", indentText(v.Message, "     "))
		}
	}
}
