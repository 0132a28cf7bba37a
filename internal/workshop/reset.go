package main

import (
	"bufio"
	"context"
	"fmt"
	"strconv"
	"strings"
	"unicode"

	"github.com/icecreamcorp/go-cancellation-workshop/internal/workshop/course"
)

// reset puts a step's starter files back, from the workshop's own branch of
// the clone (upstream, else origin), after asking.
func (a *app) reset(ctx context.Context, args []string) int {
	flags, pos, err := splitFlags(args, []string{"y", "yes"}, []string{"from"})
	switch {
	case err != nil:
		return a.usageError("%v — go tool workshop reset [-y] [-from REF] STEP", err)
	case len(pos) == 0:
		return a.usageError("usage: go tool workshop reset [-y] [-from REF] STEP (a step must be named: reset throws your work on it away)")
	case len(pos) > 1:
		return a.usageError("reset takes one step at a time: go tool workshop reset [-y] [-from REF] STEP")
	}
	step, err := a.stepArg(ctx, pos[0])
	if err != nil {
		return a.usageError("%v", err)
	}
	plan, err := course.PlanReset(ctx, a.root, step, flags["from"])
	if err != nil {
		fmt.Fprintf(a.stderr, "workshop: reset %s: %v\n", step.Name, err)
		return exitRed
	}
	w := a.stdout
	if plan.Empty() {
		fmt.Fprintf(w, "%s is already its starter (as %s has it): nothing to do.\n", step.Name, plan.Ref)
		return exitOK
	}
	fmt.Fprintf(w, "Reset %s to its starter, as %s has it. Only files in %s/ change:\n", step.Name, plan.Ref, plan.Path)
	for _, f := range plan.Restore {
		fmt.Fprintf(w, "  restore  %s\n", shownName(f))
	}
	for _, f := range plan.Delete {
		fmt.Fprintf(w, "  delete   %s\n", shownName(f))
	}
	if flags["y"] == "" && flags["yes"] == "" {
		fmt.Fprintf(w, "Your changes to these files are lost. Go ahead? [y/N] ")
		answer, err := bufio.NewReader(a.stdin).ReadString('\n')
		if err != nil && answer == "" {
			// No one to answer (stdin closed, as in a script): a usage error,
			// so a script that forgot -y does not take it for a reset.
			fmt.Fprintln(w, "\nNothing changed.")
			return a.usageError("reset %s had no answer to its question: to reset without asking, go tool workshop reset -y %s", step.Name, pos[0])
		}
		if ans := strings.ToLower(strings.TrimSpace(answer)); ans != "y" && ans != "yes" {
			// A declined reset is no failure: the learner kept their work.
			fmt.Fprintln(w, "Nothing changed.")
			return exitOK
		}
	}
	if err := plan.Apply(ctx); err != nil {
		fmt.Fprintf(a.stderr, "workshop: reset %s: %v\n", step.Name, err)
		return exitRed
	}
	fmt.Fprintf(w, "%s is its starter again. Next: go tool workshop\n", step.Name)
	return exitOK
}

// shownName is a file's name as the plan shows it: as it is, or quoted
// when a terminal would hide part of it (a space at its end, a newline).
func shownName(name string) string {
	if strings.TrimSpace(name) != name || strings.ContainsFunc(name, func(r rune) bool { return !unicode.IsPrint(r) }) {
		return strconv.Quote(name)
	}
	return name
}
