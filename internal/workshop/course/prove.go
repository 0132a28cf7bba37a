package course

// Proving a catalog: each mistake applied to the solution, put over its step
// with `go test -overlay` (the files on disk untouched; overlay.go), and its
// task's tests run on it. Rejected = the run
// failed, by an assertion or a crash, and it built. A [race] entry runs
// under -race; a [vet] entry is rejected by go vet instead.

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/icecreamcorp/go-cancellation-workshop/internal/gotest"
)

// A Verdict is what the tests made of one mistake.
type Verdict struct {
	Mistake  Mistake
	Rejected bool
	Problem  string        // why the entry is bad: it does not apply, does not build, or the tests accept it
	Message  string        // the first failure the tests gave it, ≤ 10 lines
	Took     time.Duration // of its go command
}

// MutantsAtOnce is how many mutants ProveMistakes runs at a time: each is a
// build and a test binary, and the machine is shared.
const MutantsAtOnce = 2

// ProveMistakes applies each mistake to the step's solution, puts it over
// the step and runs its task's tests on it, MutantsAtOnce at a time; done
// hears of each verdict as it comes. The verdicts are in the entries' order.
func ProveMistakes(ctx context.Context, g gotest.Go, root string, step Step, tasks []Task, entries []Mistake, done func(Verdict)) []Verdict {
	g.Dir = root
	verdicts := make([]Verdict, len(entries))
	sem := make(chan struct{}, MutantsAtOnce)
	var wg sync.WaitGroup
	var mu sync.Mutex
	for i, m := range entries {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			v := proveOne(ctx, g, root, step, tasks, m)
			verdicts[i] = v
			if done != nil {
				mu.Lock()
				done(v)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return verdicts
}

func proveOne(ctx context.Context, g gotest.Go, root string, step Step, tasks []Task, m Mistake) (v Verdict) {
	v = Verdict{Mistake: m}
	i := slices.IndexFunc(tasks, func(tk Task) bool { return tk.N == m.Task })
	if i < 0 {
		v.Problem = fmt.Sprintf("no task %d in %s", m.Task, ManifestFile)
		return v
	}
	files, err := m.Apply(step.SolutionDir(root))
	if err != nil {
		v.Problem = err.Error()
		return v
	}
	overlay, cleanup, err := overlayFile(root, []Step{step}, files)
	if err != nil {
		v.Problem = "writing the overlay: " + err.Error()
		return v
	}
	defer cleanup()
	pkg := "./" + step.Name
	start := time.Now()
	defer func() { v.Took = time.Since(start) }()
	if m.Has("vet") {
		out, errOut, err := g.Run(ctx, "vet", "-overlay="+overlay, pkg)
		text := strings.TrimSpace(out + errOut)
		switch {
		case strings.Contains(text, "\nvet: ") || strings.HasPrefix(text, "vet: "):
			v.Problem = "the mutant does not build:\n" + indent(tail(strings.Split(text, "\n"), 10))
		case err == nil:
			v.Problem = "ACCEPTED: go vet says nothing of it"
		default:
			v.Rejected, v.Message = true, tail(nonEmpty(strings.Split(text, "\n")), 10)
		}
		return v
	}
	args := []string{"-count=1", "-timeout=60s", "-overlay=" + overlay, "-run", tasks[i].Run}
	if m.Has("race") {
		args = append(args, "-race")
	}
	runs, stderr := g.TestJSON(ctx, nil, append(args, pkg)...)
	modPath, _ := gotest.ModulePath(root)
	run := gotest.Pick(runs, modPath+"/"+step.Name)
	switch {
	case run.BuildFailed:
		v.Problem = "the mutant does not build:\n" + indent(tail(nonEmpty(strings.Split(strings.TrimSpace(run.BuildOutput), "\n")), 10))
	case run.Result == "pass":
		v.Problem = fmt.Sprintf("ACCEPTED: go test -run '%s' passes on it: a hole in the tests%s", tasks[i].Run, skipped(run))
	case run.Result == "":
		v.Problem = "go test gave no result:\n" + indent(strings.TrimSpace(stderr+"\n"+tail(run.Output, 10)))
	default:
		v.Rejected, v.Message = true, FirstFailure(*run, 10)
	}
	return v
}

// FirstFailure is the first failure of a run, as a learner would read it, in
// at most max lines: a crash's first lines, else the first failing test's
// (innermost) output without go test's chatter.
func FirstFailure(run gotest.TestRun, max int) string {
	if line, _, ok := run.Crash(); ok {
		return crashExcerpt(run, line, max)
	}
	var out []string
	if len(run.Failed) > 0 {
		for _, l := range run.ByTest[run.Failed[0]] {
			t := strings.TrimSpace(l)
			if t == "" || strings.HasPrefix(t, "=== ") {
				continue
			}
			out = append(out, strings.TrimRight(l, " "))
		}
	}
	if len(out) == 0 {
		out = nonEmpty(run.Output)
	}
	if len(out) > max {
		out = append(out[:max-1], fmt.Sprintf("[… %d more lines]", len(out)-max+1))
	}
	return strings.Join(out, "\n")
}

// skipped says which tests of an accepting run skipped, and why: a test that
// skips here (under nohup, say) may be the one that rejects the mutant.
func skipped(run *gotest.TestRun) string {
	var names []string
	why := ""
	for _, name := range run.Ran {
		if run.Outcome[name] != "skip" {
			continue
		}
		names = append(names, name)
		for _, l := range run.ByTest[name] {
			if l = strings.TrimSpace(l); why == "" && l != "" && !strings.HasPrefix(l, "---") && !strings.HasPrefix(l, "=== ") {
				why = l
			}
		}
	}
	if len(names) == 0 {
		return ""
	}
	return fmt.Sprintf(" — or a test skipped here: %s (%s)", strings.Join(names, ", "), why)
}
