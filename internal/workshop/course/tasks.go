package course

import (
	"slices"
	"strings"

	"github.com/icecreamcorp/go-cancellation-workshop/internal/gotest"
)

// TaskResult is where a task stands after a run of its step's tests.
type TaskResult struct {
	N      int
	Done   bool     // every test its command selects passed
	Tests  []string // the tests its command selects
	Failed []string // those that failed, subtests included, innermost first
}

// TaskResults judges each task of a step from a run of its tests.
func TaskResults(tasks []Task, run *gotest.TestRun) []TaskResult {
	var results []TaskResult
	for _, tk := range tasks {
		sel := run.Selects(tk.Run)
		res := TaskResult{N: tk.N, Tests: sel, Done: len(sel) > 0}
		for _, name := range run.Failed {
			top, _, _ := strings.Cut(name, "/")
			if slices.Contains(sel, top) {
				res.Failed = append(res.Failed, name)
			}
		}
		for _, name := range sel {
			res.Done = res.Done && (run.Outcome[name] == "pass" || run.Outcome[name] == "skip")
		}
		results = append(results, res)
	}
	return results
}
