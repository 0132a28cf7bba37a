package main

import (
	"context"
	"fmt"
	"time"

	"github.com/icecreamcorp/go-cancellation-workshop/internal/workshop/course"
)

// mutantsAtOnce is how many mutants run at a time: each is a build and a
// test binary, and the machine is shared.
const mutantsAtOnce = 2

// verifyMistakes proves every step's mistake catalog: each entry applied
// with go test -overlay and rejected by its task's tests. A bad entry fails,
// and so do a step without a catalog and a task with fewer than
// course.MinMistakes entries.
func (a *app) verifyMistakes(ctx context.Context, steps []course.Step) bool {
	a.progress(fmt.Sprintf("the mistake catalogs: each entry a go test -overlay run of its task, %d at a time", mutantsAtOnce))
	start := time.Now()
	n := 0
	cats, err := course.ProveCatalogs(ctx, a.g, a.root, steps, mutantsAtOnce, func(i, total int, v course.Verdict) {
		n++
		a.progress(fmt.Sprintf("[%d/%d] %s", i, total, v.Line()))
	})
	if err != nil {
		fmt.Fprintf(a.stdout, "✗ the mistake catalogs: %v\n", err)
		return false
	}
	w := a.stdout
	ok := true
	for _, sc := range cats {
		name := "solutions/" + sc.Step.Name + "/" + course.CatalogFile
		short := sc.Short
		if sc.Missing {
			short = []string{"no " + course.CatalogFile + " yet"}
		}
		bad := sc.Bad()
		switch {
		case sc.Broken != "":
			ok = false
			fmt.Fprintf(w, "✗ %s: no entry proved — the solution's tests do not build as they are:\n%s\n", name, indentText(sc.Broken, "    "))
		case len(bad) > 0:
			ok = false
			fmt.Fprintf(w, "✗ %s: %d of %d entries are bad:\n", name, len(bad), len(sc.Verdicts))
			for _, v := range bad {
				fmt.Fprintf(w, "    %s, task %d, %q: %s\n", sc.Step.Name, v.Mistake.Task, v.Mistake.Title, indentText(v.Problem, "      ")[6:])
			}
		case !sc.Missing:
			fmt.Fprintf(w, "✓ %s: %d entries, every one rejected by its task's tests\n", name, len(sc.Verdicts))
		}
		for _, s := range short {
			ok = false
			fmt.Fprintf(w, "✗ %s: %s\n", name, s)
		}
	}
	if n > 0 {
		fmt.Fprintf(w, "  the catalogs' proof: %d mutants in %.0fs, %d at a time\n", n, time.Since(start).Seconds(), mutantsAtOnce)
	}
	return ok
}
