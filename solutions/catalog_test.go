package solutions

// The mistake catalogs, solutions/NN-…/MISTAKES.md (README.md in this
// folder): TestIntegrity checks each without running anything (it parses,
// each entry is under a task of the manifest and applies exactly once, each
// task with files has minMistakes entries); TestCatalogs proves them, each
// entry applied with go test -overlay and rejected by its task's tests. That
// takes a go test per entry, about 10 minutes, so it runs only when asked:
//
//	go test ./solutions -run '^TestCatalogs$' -timeout 30m -v -args -catalogs
//
// and one step alone (a subtest per step):
//
//	go test ./solutions -run 'TestCatalogs/04' -timeout 30m -v -args -catalogs

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/icecreamcorp/go-cancellation-workshop/internal/gotest"
	"github.com/icecreamcorp/go-cancellation-workshop/internal/workshop/course"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var proveCatalogs = flag.Bool("catalogs", false, "TestCatalogs: prove every mistake catalog, a go test per entry (about 10 minutes)")

// minMistakes is how many entries a task with files must have.
const minMistakes = 3

// catalogCheck is TestIntegrity's look at a step's catalog: it parses, each
// entry is under a task of the manifest and applies exactly once, and each
// task with files has minMistakes entries.
func catalogCheck(root string, step course.Step, tasks []course.Task) []string {
	entries, ok, err := course.ReadCatalog(root, step)
	switch {
	case err != nil:
		return []string{err.Error()}
	case !ok:
		if slices.ContainsFunc(tasks, func(tk course.Task) bool { return len(tk.Files) > 0 }) {
			return []string{fmt.Sprintf("solutions/%s has no %s yet", step.Name, course.CatalogFile)}
		}
		return nil
	}
	problems, counts := catalogProblems(tasks, step.SolutionDir(root), entries)
	return append(problems, shortTasks(tasks, counts)...)
}

// catalogProblems checks a catalog's entries without running anything:
// every entry is under a "## Task N: <title>" of the manifest, has a diff,
// and applies to the solution in dir. counts is the number of entries per
// task.
func catalogProblems(tasks []course.Task, dir string, entries []course.Mistake) (problems []string, counts map[int]int) {
	counts = map[int]int{}
	titles := map[int]string{}
	for _, tk := range tasks {
		titles[tk.N] = tk.Title
	}
	for _, m := range entries {
		name := fmt.Sprintf("%s:%d: task %d, %q", course.CatalogFile, m.Line, m.Task, m.Title)
		want, ok := titles[m.Task]
		switch {
		case !ok:
			problems = append(problems, fmt.Sprintf("%s: no task %d in %s (under \"## Task N: <title>\")", name, m.Task, course.ManifestFile))
			continue
		case m.TaskTitle != want:
			problems = append(problems, fmt.Sprintf("%s: its section says \"## Task %d: %s\", %s says %q", name, m.Task, m.TaskTitle, course.ManifestFile, want))
		}
		counts[m.Task]++
		if _, err := m.Apply(dir); err != nil {
			problems = append(problems, fmt.Sprintf("%s: %v", name, err))
		}
	}
	return problems, counts
}

// shortTasks lists the tasks with files that have fewer than minMistakes
// entries.
func shortTasks(tasks []course.Task, counts map[int]int) []string {
	var short []string
	for _, tk := range tasks {
		if len(tk.Files) > 0 && counts[tk.N] < minMistakes {
			short = append(short, fmt.Sprintf("task %d has %d catalog entries, want at least %d", tk.N, counts[tk.N], minMistakes))
		}
	}
	return short
}

// TestCatalogs proves every step's catalog, a subtest per step, after
// showing on a fixture that a bad catalog fails the proof.
func TestCatalogs(t *testing.T) {
	if !*proveCatalogs {
		t.Skip("the proof of the mistake catalogs runs a go test per entry (about 10 minutes): go test ./solutions -run '^TestCatalogs$' -timeout 30m -v -args -catalogs")
	}
	root := moduleRoot(t)
	steps, err := course.Steps(root)
	if err != nil {
		t.Fatalf("listing the steps: %v", err)
	}
	t.Run("a bad catalog fails", testCatalogProofFails)
	for _, step := range steps {
		t.Run(step.Name, func(t *testing.T) {
			for _, p := range proveCatalog(t, root, step) {
				t.Error(p)
			}
		})
	}
}

// proveCatalog proves a step's catalog: each entry applied to the solution,
// put over the step with go test -overlay, and its task's tests run on it,
// course.MutantsAtOnce at a time (course.ProveMistakes), each verdict
// logged as it comes. It returns the problems: no catalog, a task with too
// few entries, a solution whose tests do not build as they are (then no
// entry is run), and each entry that does not apply, does not build, or
// that the tests accept.
func proveCatalog(t *testing.T, root string, step course.Step) []string {
	file := fmt.Sprintf("solutions/%s/%s", step.Name, course.CatalogFile)
	tasks, err := step.ReadTasks()
	if err != nil {
		return []string{err.Error()}
	}
	entries, ok, err := course.ReadCatalog(root, step)
	switch {
	case err != nil:
		return []string{err.Error()}
	case !ok:
		return []string{file + ": no catalog yet"}
	}
	counts := map[int]int{}
	for _, m := range entries {
		counts[m.Task]++
	}
	var problems []string
	for _, s := range shortTasks(tasks, counts) {
		problems = append(problems, file+": "+s)
	}

	g := gotest.Go{Dir: root}
	overlay := filepath.Join(t.TempDir(), "overlay.json")
	if err := course.WriteSolutionOverlay(root, []course.Step{step}, overlay); err != nil {
		return append(problems, "writing the overlay: "+err.Error())
	}
	if out, errOut, err := g.Run(t.Context(), "test", "-count=1", "-overlay="+overlay, "-run", "^$", "./"+step.Name); err != nil {
		return append(problems, fmt.Sprintf("%s: no entry proved — the solution's tests do not build as they are:\n%s", file, strings.TrimSpace(out+errOut)))
	}

	t.Logf("%s: %d entries, each a go test -overlay run of its task's tests, %d at a time", file, len(entries), course.MutantsAtOnce)
	start, n := time.Now(), 0
	verdicts := course.ProveMistakes(t.Context(), g, root, step, tasks, entries, func(v course.Verdict) {
		n++
		mark := "rejected"
		if !v.Rejected {
			mark = "BAD"
		}
		t.Logf("[%d/%d] %s: task %d, %q (%.1fs)", n, len(entries), mark, v.Mistake.Task, v.Mistake.Title, v.Took.Seconds())
	})
	bad := 0
	for _, v := range verdicts {
		if !v.Rejected {
			bad++
			problems = append(problems, fmt.Sprintf("%s:%d: task %d, %q: %s", file, v.Mistake.Line, v.Mistake.Task, v.Mistake.Title, v.Problem))
		}
	}
	t.Logf("%s: %d of %d entries rejected by their task's tests, in %.0fs", file, len(entries)-bad, len(entries), time.Since(start).Seconds())
	return problems
}

// testCatalogProofFails shows the proof failing on a fixture course: an
// entry the tests accept, a task with too few entries, and a solution whose
// tests do not build (said once, not entry by entry): a proof that cannot
// fail proves nothing.
func testCatalogProofFails(t *testing.T) {
	root := t.TempDir()
	for name, content := range map[string]string{
		"go.mod": "module example.com/fixture\n\ngo 1.26\n",
		"course.yaml": "steps:\n  - dir: 01-double\n    title: \"01 — Doubling\"\n    tasks:\n" +
			"      - {task: 1, title: 'Double', files: [double.go], run: 'TestDouble', hints: hints/task-1.md}\n",
		"01-double/double.go": "package double\n\n// TODO(task 1): return twice n.\nfunc Double(n int) int { return 0 }\n",
		"01-double/double_test.go": "package double\n\nimport \"testing\"\n\nfunc TestDouble(t *testing.T) {\n" +
			"\tif got := Double(21); got != 42 {\n\t\tt.Errorf(\"Double(21) = %d, want 42\", got)\n\t}\n}\n",
		"solutions/01-double/double.go": "package double\n\nfunc Double(n int) int { return 2 * n }\n",
		"solutions/01-double/MISTAKES.md": "# Mistakes: 01-double\n\n## Task 1: Double\n\n" +
			"### Adds two\n\n```diff\n--- double.go\n@@\n-func Double(n int) int { return 2 * n }\n+func Double(n int) int { return n + 2 }\n```\n\n" +
			"### Shifts left\nNot wrong at all: the tests accept it.\n\n```diff\n--- double.go\n@@\n-func Double(n int) int { return 2 * n }\n+func Double(n int) int { return n << 1 }\n```\n",
	} {
		path := filepath.Join(root, filepath.FromSlash(name))
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755), "mkdir for %s", name)
		require.NoError(t, os.WriteFile(path, []byte(content), 0o644), "writing %s", name)
	}
	step := course.Step{Name: "01-double", Num: 1, Dir: filepath.Join(root, "01-double")}
	const file = "solutions/01-double/MISTAKES.md"

	problems := proveCatalog(t, root, step)
	require.Len(t, problems, 2, "problems: %q", problems)
	assert.Equal(t, file+": task 1 has 2 catalog entries, want at least 3", problems[0], "a task with too few entries")
	assert.Contains(t, problems[1], file+`:14: task 1, "Shifts left": ACCEPTED: go test -run 'TestDouble' passes on it`, "an entry the tests accept, named")

	broken := filepath.Join(root, "solutions", "01-double", "broken.go")
	require.NoError(t, os.WriteFile(broken, []byte("package double\n\nfunc broken() { undefinedHelper() }\n"), 0o644), "writing broken.go")
	problems = proveCatalog(t, root, step)
	require.Len(t, problems, 2, "problems: %q", problems)
	assert.Contains(t, problems[1], file+": no entry proved — the solution's tests do not build as they are", "a broken solution, said once")
	assert.Contains(t, problems[1], "undefined: undefinedHelper", "with why")
}
