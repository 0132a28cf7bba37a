package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/icecreamcorp/go-cancellation-workshop/internal/workshop/course"
)

// verify is the instructor's check: the integrity check the test suite runs
// (the same code), then every solution's tests with -race — what
// `go test -race ./solutions/...` proves — then the mistake catalogs, with
// progress. -short: only what needs no build; -mistakes-only: only the
// catalogs (CI's stage for them); -solution-overlay FILE: only write the
// overlay that puts every solution over its step, for
// `go test -overlay FILE ./NN-…` (CI builds the Windows and macOS test
// binaries with it).
func (a *app) verify(ctx context.Context, args []string) int {
	flags, pos, err := splitFlags(args, []string{"short", "mistakes-only"}, []string{"solution-overlay"})
	if err != nil || (len(pos) > 0 && flags["mistakes-only"] == "") || (flags["short"] != "" && flags["mistakes-only"] != "") ||
		(flags["solution-overlay"] != "" && len(flags) > 1) {
		return a.usageError("usage: go tool workshop verify [-short | -mistakes-only [STEP…] | -solution-overlay FILE]  (-short: only what needs no build; -mistakes-only: only the mistake catalogs' proof, of every step or of those named; -solution-overlay: write the overlay that puts every solution over its step, for go test -overlay FILE)")
	}
	if path := flags["solution-overlay"]; path != "" {
		if err := course.WriteSolutionOverlay(a.root, a.steps, path); err != nil {
			fmt.Fprintf(a.stderr, "workshop: verify: %v\n", err)
			return exitRed
		}
		return 0
	}
	start := time.Now()
	if flags["mistakes-only"] != "" {
		steps := a.steps
		if len(pos) > 0 {
			steps = nil
			for _, arg := range pos {
				step, err := a.stepArg(ctx, arg)
				if err != nil {
					return a.usageError("%v", err)
				}
				steps = append(steps, step)
			}
		}
		return a.verdict(a.verifyMistakes(ctx, steps), start)
	}
	g := a.g
	g.Log = func(cmd string, took time.Duration) { fmt.Fprintf(a.stderr, "    %s (%.1fs)\n", cmd, took.Seconds()) }
	rep, err := course.Verify(ctx, a.root, course.VerifyOptions{
		Short:    flags["short"] != "",
		VetAll:   true,
		Progress: a.progress,
		Go:       g,
	})
	if err != nil {
		fmt.Fprintf(a.stderr, "workshop: verify: %v\n", err)
		return exitRed
	}
	w := a.stdout
	ok := rep.OK()
	for _, p := range rep.Problems {
		fmt.Fprintf(w, "✗ %s\n", p)
	}
	for _, sr := range rep.Steps {
		if sr.OK() {
			fmt.Fprintf(w, "✓ %s: a fair exercise\n", sr.Step.Name)
		} else {
			fmt.Fprintf(w, "✗ %s:\n", sr.Step.Name)
		}
		for _, c := range sr.Checks {
			for _, p := range c.Problems {
				fmt.Fprintf(w, "    %s: %s\n", c.Name, strings.TrimPrefix(indentText(p, "      "), "      "))
			}
		}
	}
	if flags["short"] == "" {
		if !a.verifySolutions(ctx, g) {
			ok = false
		}
		if !a.verifyMistakes(ctx, a.steps) {
			ok = false
		}
	}
	return a.verdict(ok, start)
}

func (a *app) verdict(ok bool, start time.Time) int {
	verdict := "all green"
	if !ok {
		verdict = "RED"
	}
	fmt.Fprintf(a.stdout, "\nverify: %s in %.0fs\n", verdict, time.Since(start).Seconds())
	if !ok {
		return exitRed
	}
	return exitOK
}

// verifySolutions runs the step's tests on every solution, put over its
// step with go test -overlay, with -race where the race detector is
// available.
func (a *app) verifySolutions(ctx context.Context, g course.Go) bool {
	args := []string{"-count=1", "-vet=all", "-timeout", "5m"}
	if why := g.RaceProblem(ctx); why != "" {
		fmt.Fprintf(a.stdout, "  (the race detector is not available here: %s; the solutions' tests run without -race)\n", why)
	} else {
		args = append(args, "-race")
	}
	a.progress("every solution's tests: go test " + strings.Join(args, " ") + " -overlay=<each solution over its step> ./NN-…")
	runs, stderr, err := course.TestSolutions(ctx, g, a.root, a.steps, args...)
	if err != nil {
		fmt.Fprintf(a.stdout, "✗ the solutions' tests: %v\n", err)
		return false
	}
	ok := true
	for _, s := range a.steps {
		run := runs[s.Name]
		if run == nil {
			fmt.Fprintf(a.stdout, "✗ solutions/%s: no result from go test:\n%s\n", s.Name, indentText(strings.TrimSpace(stderr), "    "))
			ok = false
			continue
		}
		if p := course.SolutionProblem(*run); p != "" {
			fmt.Fprintf(a.stdout, "✗ solutions/%s: %s\n", s.Name, p)
			ok = false
			continue
		}
		fmt.Fprintf(a.stdout, "✓ solutions/%s: %d tests and subtests pass (%.1fs)\n", s.Name, len(run.Ran), run.Elapsed)
	}
	return ok
}
