package main

import (
	"bufio"
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/icecreamcorp/go-cancellation-workshop/internal/workshop/course"
)

// reset puts a step's starter files back, from the workshop's own branch of
// the clone (upstream, else origin), after asking.
func (a *app) reset(ctx context.Context, args []string) int {
	flags, pos, err := splitFlags(args, []string{"y", "yes", "undo"}, []string{"from"})
	if err != nil || len(pos) != 1 || flags["undo"] != "" && flags["from"] != "" {
		return a.usageError("usage: go tool workshop reset [-y] [-from REF] STEP, or reset -undo [-y] STEP to bring back what its last reset replaced (one step at a time)")
	}
	step, err := a.stepArg(ctx, pos[0])
	if err != nil {
		return a.usageError("%v", err)
	}
	yes := flags["y"] != "" || flags["yes"] != ""
	if flags["undo"] != "" {
		return a.undoReset(ctx, step, pos[0], yes)
	}
	plan, err := course.PlanReset(ctx, a.root, step, flags["from"])
	if err != nil {
		return a.failed("reset %s: nothing changed: %v", step.Name, err)
	}
	w := a.stdout
	if len(plan.Restore)+len(plan.Delete) == 0 {
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
	fmt.Fprintf(w, "They are kept first: go tool workshop reset -undo %s brings them back.\n", pos[0])
	if code, ok := a.confirm(yes, "reset", pos[0]); !ok {
		return code
	}
	// The hints shown for the step start again from the first once it is
	// reset; reset keeps them for -undo. A hints file it cannot read holds none.
	hints, _ := course.LoadHintState(a.stateDir)
	taken := map[string]int{}
	for k, n := range hints.Shown {
		if strings.HasPrefix(k, step.Name+"/") {
			taken[k] = n
			delete(hints.Shown, k)
		}
	}
	if err := plan.Apply(ctx, a.stateDir, taken); err != nil {
		return a.failed("reset %s: %v", step.Name, err)
	}
	if len(taken) > 0 {
		if err := hints.Save(); err != nil {
			fmt.Fprintf(a.stderr, "workshop: the hints shown for %s are still remembered: %v\n", step.Name, err)
		}
	}
	fmt.Fprintf(w, "%s is its starter again, its hints start again from the first. Next: go tool workshop\n", step.Name)
	return exitOK
}

// confirm asks "Go ahead?" unless yes. It returns ok to go ahead; otherwise
// the exit code: a declined question is no failure (the learner kept their
// work), no answer at all (stdin closed, as in a script that forgot -y) is a
// usage error.
func (a *app) confirm(yes bool, cmd, arg string) (code int, ok bool) {
	if yes {
		return exitOK, true
	}
	fmt.Fprintf(a.stdout, "Go ahead? [y/N] ")
	answer, err := bufio.NewReader(a.stdin).ReadString('\n')
	if err != nil && answer == "" {
		fmt.Fprintln(a.stdout, "\nNothing changed.")
		return a.usageError("%s %s had no answer to its question: to go ahead without asking, go tool workshop %s -y %s", cmd, arg, cmd, arg), false
	}
	if ans := strings.ToLower(strings.TrimSpace(answer)); ans != "y" && ans != "yes" {
		fmt.Fprintln(a.stdout, "Nothing changed.")
		return exitOK, false
	}
	return exitOK, true
}

// undoReset brings back what the step's last reset replaced or deleted.
func (a *app) undoReset(ctx context.Context, step course.Step, arg string, yes bool) int {
	k, err := course.LastKept(ctx, a.stateDir, a.root, step)
	if err == nil && k == nil {
		err = fmt.Errorf("no reset of %s is kept to undo (kept in %s)", step.Name, a.stateDir)
	}
	if err != nil {
		return a.failed("reset -undo %s: nothing changed: %v", step.Name, err)
	}
	w := a.stdout
	fmt.Fprintf(w, "Undo the reset of %s made %s. Only files in %s/ change:\n", step.Name, k.Time.Local().Format("Mon 15:04:05"), k.Path)
	for _, f := range slices.Sorted(maps.Keys(k.Saved)) {
		fmt.Fprintf(w, "  bring back  %s\n", shownName(f))
	}
	for _, f := range k.Absent {
		fmt.Fprintf(w, "  delete      %s\n", shownName(f))
	}
	fmt.Fprintln(w, "Undo replaces these files: what you changed in them since that reset will be gone.")
	if code, ok := a.confirm(yes, "reset -undo", arg); !ok {
		return code
	}
	if err := k.Undo(); err != nil {
		return a.failed("reset -undo %s: %v", step.Name, err)
	}
	if state, err := course.LoadHintState(a.stateDir); err == nil && len(k.Hints) > 0 {
		maps.Copy(state.Shown, k.Hints)
		if err := state.Save(); err != nil {
			fmt.Fprintf(a.stderr, "workshop: the hints shown for %s were not brought back: %v\n", step.Name, err)
		}
	}
	fmt.Fprintf(w, "%s is as it was before its last reset. Next: go tool workshop\n", step.Name)
	return exitOK
}

// shownName is a file's name as the plan shows it: as it is, or quoted
// when a terminal would hide or change part of it (a space at its end, a
// newline, a byte that is not UTF-8).
func shownName(name string) string {
	if strings.TrimSpace(name) != name || !utf8.ValidString(name) || strings.ContainsFunc(name, func(r rune) bool { return !unicode.IsPrint(r) }) {
		return strconv.Quote(name)
	}
	return name
}
