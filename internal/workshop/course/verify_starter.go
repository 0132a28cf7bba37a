package course

// The integrity check's verdicts on a starter, from one go test -json run
// of every starter (Verify).

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
)

// starterChecks judges a starter from its run.
func starterChecks(ctx context.Context, g Go, sr *StepReport, tasks []Task, run *TestRun, stderr string, budget time.Duration, vet string) {
	step := sr.Step
	builds, red, selects, one := sr.add(CheckBuilds), sr.add(CheckRed), sr.add(CheckSelects), sr.add(CheckOneTask)
	if run.BuildFailed {
		what := "does not build"
		if IsVetFailure(run.BuildOutput) {
			what = "is not go vet clean"
		}
		builds.Problems = append(builds.Problems, fmt.Sprintf("the starter %s (go test %s ./%s) — a starter must compile and vet clean:\n%s",
			what, vet, step.Name, indent(strings.TrimSpace(run.BuildOutput))))
		red.Skipped = "the starter does not build"
		selects.Skipped, one.Skipped = red.Skipped, red.Skipped
		return
	}
	if names, err := listTests(ctx, g, step, run); err != nil {
		one.Problems = append(one.Problems, err.Error())
	} else {
		one.fail(StrictOneTask, SelectionProblems(tasks, names)...)
	}
	if err := StarterProblem(*run, budget); err != nil {
		red.Problems = append(red.Problems, fmt.Sprintf("go test ./%s: %v%s", step.Name, err, quoteStderr(stderr)))
	} else {
		red.Notes = append(red.Notes, fmt.Sprintf("%d failing tests and subtests, in %.2fs (budget %v)", len(run.Failed), run.Elapsed, budget))
	}
	if _, _, crashed := run.crash(); crashed || run.Result == "" {
		selects.Skipped = "the starter's run did not finish, so not every test's name is known"
		return
	}
	// Each task's command must select a test: what -run selects among the
	// tests that ran; for a pattern that names subtests, go test says.
	for _, tk := range tasks {
		for _, p := range tk.Patterns {
			var sel []string
			var err error
			if strings.Contains(p, "/") {
				_, sel, _ = taskRun(ctx, g, "./"+step.Name, p, "-vet=off")
			} else {
				sel, err = run.Selects(p)
			}
			switch {
			case err != nil:
				selects.Problems = append(selects.Problems, fmt.Sprintf("%s: task %d: %v", ManifestFile, tk.N, err))
			case len(sel) == 0:
				selects.Problems = append(selects.Problems, fmt.Sprintf("%s: task %d: go test -run '%s' selects no test (top-level tests: %s)",
					ManifestFile, tk.N, p, strings.Join(run.TopLevel(), ", ")))
			}
		}
	}
}

// listTests lists the step's top-level tests, as `go test -list .` would:
// read from its test files (TopLevelTests), with every top-level test its
// run reported added, in case the go command found one that the reading
// did not. Only if the files cannot be read does it ask go test -list,
// which links the test binary again (a second or two of CPU per step).
func listTests(ctx context.Context, g Go, step Step, run *TestRun) ([]string, error) {
	names, err := TopLevelTests(step.Dir)
	if err != nil {
		out, errOut, err := g.Run(ctx, "test", "-list", ".", "-vet=off", "./"+step.Name)
		if err != nil {
			return nil, fmt.Errorf("go test -list . ./%s: %v\n%s", step.Name, err, indent(strings.TrimSpace(out+errOut)))
		}
		names = strings.Split(strings.TrimSpace(out), "\n")
	}
	for _, name := range run.TopLevel() {
		if !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	return names, nil
}

// IsVetFailure tells go vet's complaints from the compiler's in a build's
// output: vet's come under a "# [package]" heading.
func IsVetFailure(buildOutput string) bool {
	for _, line := range strings.Split(buildOutput, "\n") {
		if strings.HasPrefix(line, "# [") {
			return true
		}
	}
	return false
}

func quoteStderr(stderr string) string {
	if s := strings.TrimSpace(stderr); s != "" {
		return "\ngo test's stderr:\n" + indent(s)
	}
	return ""
}
