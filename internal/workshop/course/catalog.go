package course

// The catalogs of the whole course: checked without running anything by
// the integrity check (CheckCatalog), proved by `go tool workshop verify`
// and CI (ProveCatalogs), which run every mutant.

import (
	"context"
	"fmt"
	"slices"
	"sort"
)

// MinMistakes is how many entries a task with files must have.
const MinMistakes = 3

// StrictCatalogCount makes a task with fewer than MinMistakes entries, or a
// step with TODOs and no catalog, a failure rather than a report. It is off
// until every step's catalog is committed (05-menu-v3's is not yet).
var StrictCatalogCount = false

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
			c.fail(StrictCatalogCount, fmt.Sprintf("solutions/%s has no %s yet", step.Name, CatalogFile))
		}
		return
	}
	problems, counts := CatalogProblems(tasks, step.SolutionDir(root), entries)
	c.Problems = append(c.Problems, problems...)
	c.fail(StrictCatalogCount, ShortTasks(tasks, counts)...)
	c.Notes = append(c.Notes, fmt.Sprintf("%d entries %v", len(entries), countsText(counts)))
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

func countsText(counts map[int]int) string {
	var keys []int
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Ints(keys)
	s := ""
	for _, k := range keys {
		s += fmt.Sprintf(" task %d: %d", k, counts[k])
	}
	return "(" + s[min(1, len(s)):] + ")"
}

// A StepCatalog is the proof of one step's catalog.
type StepCatalog struct {
	Step     Step
	Missing  bool // no MISTAKES.md
	Counts   map[int]int
	Short    []string // tasks with too few entries (ShortTasks)
	Verdicts []Verdict
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

// ProveCatalogs proves the catalog of every step (or of the steps named):
// each entry applied and its task's tests run, parallel mutants at a time.
func ProveCatalogs(ctx context.Context, g Go, root string, steps []Step, parallel int, done func(Verdict)) ([]*StepCatalog, error) {
	var out []*StepCatalog
	for _, step := range steps {
		if err := ctx.Err(); err != nil {
			return out, err
		}
		tasks, err := step.ReadTasks()
		if err != nil {
			return nil, err
		}
		entries, ok, err := ReadCatalog(root, step)
		if err != nil {
			return nil, err
		}
		sc := &StepCatalog{Step: step, Missing: !ok, Counts: map[int]int{}}
		for _, m := range entries {
			sc.Counts[m.Task]++
		}
		sc.Short = ShortTasks(tasks, sc.Counts)
		sc.Verdicts = ProveMistakes(ctx, g, root, step, tasks, entries, parallel, done)
		out = append(out, sc)
	}
	return out, ctx.Err()
}
