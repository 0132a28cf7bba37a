package course

// The quick run: the tests of the one task in progress, without -race or
// vet, so that a verdict comes a second after a save. CheckStep follows it
// and may change it; only CheckStep says a step is done.

import (
	"context"
	"strings"
)

// QuickTask runs the tests of one task of a step (go test -run its
// pattern, -vet=off, -failfast, no -race) and judges that task alone. st holds that
// one task's result, and Problem and CrashTask as for a full run; it is not
// cached.
func QuickTask(ctx context.Context, g Go, root string, step Step, tk Task) (*StepStatus, error) {
	g.Dir = root
	modPath, err := ModulePath(root)
	if err != nil {
		return nil, err
	}
	st := &StepStatus{Step: step.Name}
	pattern := strings.Join(tk.Patterns, "|")
	subtests := strings.Contains(pattern, "/")
	if subtests {
		pattern = tk.Patterns[0] // a pattern that names subtests stands alone
	}
	// After a save, go test compiles the step's package and relinks its test
	// binary: most of the wait. Without optimisation (-N -l, on the step's
	// package alone) and without DWARF (-w) both take about a quarter less;
	// the full run after this one builds as go test does. The screen shows
	// the task's first failure, so -failfast: once a test fails, the rest
	// of the task's tests are not started (in 05's starter, 0.2s → 0.02s).
	args := []string{"-count=1", "-vet=off", "-failfast", "-gcflags=-N -l", "-ldflags=-w",
		"-timeout", "60s", "-run", pattern, "./" + step.Name}
	runs, stderr := g.TestJSON(ctx, args...)
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	run := pick(runs, modPath+"/"+step.Name)
	st.Run = run
	st.Problem = RunProblem(run, stderr)
	one := []Task{tk}
	if subtests {
		res := TaskResult{N: tk.N, Failed: run.Failed}
		for _, name := range run.Ran {
			if strings.Contains(name, "/") {
				res.Tests = append(res.Tests, name)
			}
		}
		res.Done = run.Result == "pass" && len(res.Tests) > 0
		st.Tasks = []TaskResult{res}
	} else {
		st.Tasks = TaskResults(ctx, g, "./"+step.Name, one, run)
	}
	if st.Problem != "" {
		st.CrashTask = CrashTask(run, step.Name, one)
	}
	if st.RaceTask = RaceTask(run, step.Name, one); st.RaceTask != 0 {
		st.Tasks[0].Done = false
	}
	return st, nil
}
