package course

import (
	"regexp"
	"slices"
	"strings"
)

// TaskResult is where a task stands after a run of its step's tests.
type TaskResult struct {
	N      int
	Done   bool     // every test its command selects passed
	Tests  []string // the tests its command selects
	Failed []string // those that failed, subtests included, innermost first
}

// TopLevel lists the top-level tests (and examples) of a run, in order.
func (r *TestRun) TopLevel() []string {
	var top []string
	for _, name := range r.Ran {
		if !strings.Contains(name, "/") && !slices.Contains(top, name) {
			top = append(top, name)
		}
	}
	return top
}

// Selects returns the top-level tests of the run that `go test -run pattern`
// runs: -run is a regular expression matched against each top-level test's
// name (`go help testflag`). A pattern that is no regular expression, or
// that has a slash (which would select subtests), selects none: course.yaml
// refuses both.
func (r *TestRun) Selects(pattern string) []string {
	re, err := regexp.Compile(pattern)
	var sel []string
	for _, name := range r.TopLevel() {
		if err == nil && re.MatchString(name) {
			sel = append(sel, name)
		}
	}
	return sel
}

// pick returns the run of the package pkg, or an empty one.
func pick(runs []*TestRun, pkg string) *TestRun {
	for _, r := range runs {
		if r.Package == pkg {
			return r
		}
	}
	return newRun(pkg)
}

// TaskResults judges each task of a step from a run of its tests.
func TaskResults(tasks []Task, run *TestRun) []TaskResult {
	var results []TaskResult
	for _, tk := range tasks {
		res := TaskResult{N: tk.N, Done: len(tk.Patterns) > 0}
		for _, p := range tk.Patterns {
			sel := run.Selects(p)
			res.Tests = append(res.Tests, sel...)
			res.Done = res.Done && len(sel) > 0
			for _, name := range run.Failed {
				top, _, _ := strings.Cut(name, "/")
				if slices.Contains(sel, top) {
					res.Failed = append(res.Failed, name)
				}
			}
			for _, name := range sel {
				res.Done = res.Done && (run.Outcome[name] == "pass" || run.Outcome[name] == "skip")
			}
		}
		results = append(results, res)
	}
	return results
}
