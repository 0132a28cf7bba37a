package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/icecreamcorp/go-cancellation-workshop/internal/workshop/course"
)

// watch checks a step, then again each time the content of one of its Go
// files changes: the quick run of the task in progress, then the full one,
// as README.md's watch section says; on a terminal with the screen
// (screen.go).
func (a *app) watch(ctx context.Context, args []string) int {
	_, pos, step, ok := a.stepArgs(ctx, args, nil, 1, "watch [STEP]")
	if !ok {
		return exitUsage
	}
	w := &watcher{a: a, step: step, named: len(pos) == 1}
	if a.term.isTerminal {
		return w.onTerminal(ctx)
	}
	return w.loop(ctx)
}

// pollEvery is how often watch reads the step's Go files: a save waits 25ms
// on average to be seen.
const pollEvery = 50 * time.Millisecond

// A watcher runs a step's checks as its files change, and shows them.
type watcher struct {
	a     *app
	step  course.Step
	named bool     // the learner named the step: stay on it when it is done
	run   int      // runs started
	last  *verdict // the last full run's
	focus int      // the task in progress: the last full run's first failing task; 0 for none
	// chosen is the task the learner moved to (the n key): the task in
	// progress while it is not done.
	chosen int

	// What it shows: on a terminal a screen redrawn in place (screen.go),
	// elsewhere each verdict appended.
	screen  bool
	color   bool
	keys    chan byte // the keys pressed; nil without a screen
	suspend func()    // Ctrl-Z; nil: no job control
	at      time.Time // when the run began
	status  string    // what runs, or which run the verdict shown comes from
	from    int       // the run the verdict shown comes from
	body    string    // its report
	note    string    // a hint or a message, under the verdict
}

type runResult struct {
	v   *verdict
	err error
}

// loop runs the step's checks, again on each change, until ctx ends or the
// learner quits.
func (w *watcher) loop(ctx context.Context) int {
	for why := "first run"; why != ""; {
		why = w.once(ctx, why)
	}
	return exitOK
}

// once runs the step's checks and shows their verdicts until something
// calls for another run: it returns why, or "" to quit.
func (w *watcher) once(ctx context.Context, why string) string {
	before := goSum(w.step.Dir)
	tick := time.NewTicker(pollEvery)
	defer tick.Stop()
	runCtx, cancel := context.WithCancel(ctx)
	runs := w.start(runCtx, why)
	defer func() {
		cancel()
		for range runs { // no go command outlives the watcher
		}
	}()
	for results := runs; ; {
		select {
		case <-ctx.Done():
			return ""
		case <-tick.C:
			if goSum(w.step.Dir) != before {
				return w.step.Name + " changed"
			}
		case k := <-w.keys:
			if why, ok := w.key(k); ok {
				return why
			}
		case r, ok := <-results:
			switch {
			case !ok:
				results = nil
				if !w.named && w.last != nil && w.last.st.Finished() {
					if next, ok := w.a.nextNotDone(w.step); ok {
						return w.switchTo(next)
					}
				}
				if !w.screen {
					fmt.Fprintf(w.a.stdout, "Watching %s: save a Go file to check again (Ctrl-C to stop).\n", w.step.Name)
				}
			case r.err != nil:
				if runCtx.Err() == nil {
					fmt.Fprintf(w.a.stderr, "workshop: %v\n", r.err)
				}
			case r.v.quick:
				w.quick(r.v)
			default:
				w.full(r.v)
			}
		}
	}
}

// start runs the quick run (when a task is in progress) and then the full
// one, and sends their verdicts; the channel closes when both are done.
func (w *watcher) start(ctx context.Context, why string) chan runResult {
	w.run++
	step, last := w.step, w.last
	var tk course.Task
	if last != nil && w.focus != 0 {
		tk = taskN(last.tasks, w.focus)
	}
	quick := tk.Run != ""
	w.started(why, quick)
	out := make(chan runResult, 2)
	go func() {
		defer close(out)
		if quick {
			st, err := course.QuickTask(ctx, w.a.g, w.a.root, step, tk)
			if err != nil {
				out <- runResult{err: err}
				return
			}
			out <- runResult{v: &verdict{step: step, tasks: last.tasks, st: st, quick: true}}
		}
		v, err := w.a.fullRun(ctx, step)
		out <- runResult{v: v, err: err}
	}()
	return out
}

// switchTo watches another step, from its first run, and says why.
func (w *watcher) switchTo(step course.Step) string {
	why := fmt.Sprintf("%s is done: watching %s now", w.step.Name, step.Name)
	w.step, w.last, w.focus, w.chosen, w.body = step, nil, 0, 0, ""
	return why
}

// started shows that a run begins.
func (w *watcher) started(why string, quick bool) {
	w.at = time.Now()
	if quick {
		w.status = fmt.Sprintf("%s — running task %d's tests alone, without -race…", why, w.focus)
	} else {
		w.status = fmt.Sprintf("%s — running go vet, then every test with -race…", why)
	}
	if !w.screen {
		fmt.Fprintf(w.a.stdout, "\n──── run %d at %s: %s ────\n", w.run, w.at.Format("15:04:05"), w.status)
		return
	}
	if w.body != "" {
		w.status += fmt.Sprintf("\nBelow, until it ends: run %d's verdict, from before.", w.from)
	}
	w.draw()
}

// quick shows the quick run's verdict: the task in progress alone.
func (w *watcher) quick(v *verdict) {
	var b bytes.Buffer
	res := v.st.Tasks[0]
	fmt.Fprintf(&b, "  %s task %d  %s\n\n", mark(res.Done), res.N, taskN(v.tasks, res.N).Title)
	if !res.Done {
		w.a.failure(&b, v, res, 14)
	} else {
		fmt.Fprintf(&b, "✓ task %d's tests pass (without -race): waiting for the full run.\n", res.N)
	}
	w.show(fmt.Sprintf("Quick run (task %d alone, without -race): go vet and every test with -race are running, and may change it", res.N), b.String())
}

// full shows the full run's verdict, as check reports it, and takes the
// task in progress from it.
func (w *watcher) full(v *verdict) {
	w.last, w.focus = v, 0
	if res, ok := v.failing(); ok {
		w.focus = res.N
	}
	if slices.ContainsFunc(v.st.Tasks, func(r course.TaskResult) bool { return r.N == w.chosen && !r.Done }) {
		w.focus = w.chosen
	}
	status := "Full run: go vet, then every test with -race"
	if v.raceNote != "" {
		status = "Full run: go vet, then every test (without -race: " + v.raceNote + ")"
	}
	var b bytes.Buffer
	w.a.report(&b, v)
	w.show(status, b.String())
}

func (w *watcher) show(status, body string) {
	w.from, w.status, w.body, w.note = w.run, status, body, ""
	if !w.screen {
		fmt.Fprintf(w.a.stdout, "%s\n\n%s\n\n", status, strings.TrimRight(body, "\n"))
		return
	}
	w.draw()
}

// nextNotDone returns the first step after step, in the course's order and
// then from the start, that is not done as far as the results cache knows
// (Cache.Finished).
func (a *app) nextNotDone(step course.Step) (course.Step, bool) {
	i := slices.IndexFunc(a.steps, func(s course.Step) bool { return s.Name == step.Name })
	for j := 1; j < len(a.steps); j++ {
		next := a.steps[(i+j)%len(a.steps)]
		if hash, err := course.StepHash(a.root, next); err != nil || !a.cache().Finished(hash) {
			return next, true
		}
	}
	return course.Step{}, false
}

// goSum hashes the names and contents of the Go files under dir (hints/ and
// dot folders aside): a step's few small files, read again at each poll.
func goSum(dir string) string {
	h := sha256.New()
	_ = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
		case d.IsDir() && path != dir && (d.Name() == "hints" || strings.HasPrefix(d.Name(), ".")):
			return filepath.SkipDir
		case !d.IsDir() && strings.HasSuffix(path, ".go"):
			if data, err := os.ReadFile(path); err == nil {
				fmt.Fprintf(h, "%s\x00%x\x00", path, sha256.Sum256(data))
			}
		}
		return nil
	})
	return fmt.Sprintf("%x", h.Sum(nil))
}
