package course

// The catalogs of the whole course: checked without running anything by
// the integrity check (CheckCatalog), proved by `go tool workshop verify`
// and CI (ProveCatalogs), which run every mutant.

import (
	"context"
	"fmt"
	"slices"
	"strings"
)

// MinMistakes is how many entries a task with files must have.
const MinMistakes = 3

// catalogCheck is the integrity check's look at a step's catalog: it parses,
// each entry is under a task of the manifest and applies exactly once.
func catalogCheck(c *Check, root string, step Step, tasks []Task) {
	entries, ok, err := ReadCatalog(root, step)
	switch {
	case err != nil:
		c.Problems = append(c.Problems, err.Error())
		return
	case !ok:
		if slices.ContainsFunc(tasks, func(tk Task) bool { return len(tk.Files) > 0 }) {
			c.Problems = append(c.Problems, fmt.Sprintf("solutions/%s has no %s yet", step.Name, CatalogFile))
		}
		return
	}
	problems, counts := CatalogProblems(tasks, step.SolutionDir(root), entries)
	c.Problems = append(c.Problems, problems...)
	c.Problems = append(c.Problems, ShortTasks(tasks, counts)...)
}

// ShortTasks lists the tasks with files that have fewer than MinMistakes
// entries.
func ShortTasks(tasks []Task, counts map[int]int) []string {
	var short []string
	for _, tk := range tasks {
		if len(tk.Files) > 0 && counts[tk.N] < MinMistakes {
			short = append(short, fmt.Sprintf("task %d has %d catalog entries, want at least %d", tk.N, counts[tk.N], MinMistakes))
		}
	}
	return short
}

// A StepCatalog is the proof of one step's catalog.
type StepCatalog struct {
	Step     Step
	Missing  bool     // no MISTAKES.md
	Short    []string // tasks with too few entries (ShortTasks)
	Broken   string   // why the solution's tests do not build as they are: no entry is proved
	Verdicts []Verdict
	tasks    []Task
	entries  []Mistake
}

// Bad lists the verdicts on bad entries.
func (s *StepCatalog) Bad() []Verdict {
	var bad []Verdict
	for _, v := range s.Verdicts {
		if !v.Rejected {
			bad = append(bad, v)
		}
	}
	return bad
}

// ProveCatalogs proves the catalog of every step given: each entry applied
// and its task's tests run, parallel mutants at a time. A solution whose
// tests do not build as they are proves nothing: its step is Broken, and
// its entries are not run. done hears of each verdict, with the count of
// entries so far and in all.
func ProveCatalogs(ctx context.Context, g Go, root string, steps []Step, parallel int, done func(n, total int, v Verdict)) ([]*StepCatalog, error) {
	var out []*StepCatalog
	total := 0
	for _, step := range steps {
		tasks, err := step.ReadTasks()
		if err != nil {
			return nil, err
		}
		entries, ok, err := ReadCatalog(root, step)
		if err != nil {
			return nil, err
		}
		counts := map[int]int{}
		for _, m := range entries {
			counts[m.Task]++
		}
		out = append(out, &StepCatalog{Step: step, Missing: !ok, Short: ShortTasks(tasks, counts), tasks: tasks, entries: entries})
		total += len(entries)
	}
	g.Dir = root
	n := 0
	for _, sc := range out {
		if ctx.Err() != nil || len(sc.entries) == 0 {
			continue
		}
		if sc.Broken = solutionBuildProblem(ctx, g, root, sc.Step); sc.Broken != "" {
			n += len(sc.entries)
			continue
		}
		sc.Verdicts = ProveMistakes(ctx, g, root, sc.Step, sc.tasks, sc.entries, parallel, func(v Verdict) {
			n++ // ProveMistakes hears of one verdict at a time
			done(n, total, v)
		})
	}
	return out, ctx.Err()
}

// solutionBuildProblem builds the step's tests on its solution, or says why
// they do not build.
func solutionBuildProblem(ctx context.Context, g Go, root string, step Step) string {
	overlay, cleanup, err := overlayFile(root, []Step{step}, nil)
	if err != nil {
		return "writing the overlay: " + err.Error()
	}
	defer cleanup()
	if stdout, stderr, err := g.Run(ctx, "test", "-count=1", "-overlay="+overlay, "-run", "^$", "./"+step.Name); err != nil {
		return tail(nonEmpty(strings.Split(strings.TrimSpace(stdout+stderr), "\n")), 8)
	}
	return ""
}
