package main

import (
	"context"
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/icecreamcorp/go-cancellation-workshop/internal/workshop/course"
)

// watch checks a step, then again each time one of its Go files changes in
// content: first the quick run (the tests of the task in progress, without
// -race), then the full one (go vet, every test with -race), as check does.
// On a terminal it is a live screen with keys (screen.go); elsewhere (a
// pipe, an editor's panel) it appends each verdict to its output.
func (a *app) watch(ctx context.Context, args []string) int {
	_, pos, step, ok := a.stepArgs(ctx, args, nil, 1, "watch [STEP]")
	if !ok {
		return exitUsage
	}
	named := len(pos) == 1
	w := &watcher{a: a, step: step, named: named}
	if a.term.isTerminal {
		return w.screen(ctx)
	}
	return w.loop(ctx, &view{a: a})
}

// pollEvery is how often watch reads the step's Go files: a save waits 25ms
// on average to be seen.
const pollEvery = 50 * time.Millisecond

// A watcher runs a step's checks as its files change.
type watcher struct {
	a     *app
	step  course.Step
	named bool // the learner named the step: stay on it when it is done
	run   int  // runs started
	last  *verdict
	focus int // the task in progress: the last full run's first failing task; 0 for none
	// chosen is the task the learner moved to (screen's n key): the task in
	// progress while it is not done.
	chosen int
}

type runResult struct {
	v   *verdict
	err error
}

// loop runs the step's checks, again on each change, until ctx ends or the
// view quits.
func (w *watcher) loop(ctx context.Context, vw *view) int {
	for why := "first run"; why != ""; {
		why = w.once(ctx, vw, why)
	}
	return exitOK
}

// once runs the step's checks and shows their verdicts until something
// calls for another run: it returns why, or "" to quit.
func (w *watcher) once(ctx context.Context, vw *view, why string) string {
	changes, stopPoll := w.poll(ctx)
	defer stopPoll()
	runCtx, cancel := context.WithCancel(ctx)
	results := w.start(runCtx, vw, why)
	defer func() { cancel(); drain(results) }()
	for {
		select {
		case <-ctx.Done():
			return ""
		case <-changes:
			return w.step.Name + " changed"
		case k := <-vw.keyCh:
			if quit, again := vw.key(w, k); quit {
				return ""
			} else if again {
				return "run again (r)"
			}
		case r, ok := <-results:
			switch {
			case !ok:
				results = nil
				if next, moved := w.moveOn(); moved {
					why := fmt.Sprintf("%s is done: watching %s now", w.step.Name, next.Name)
					w.switchTo(next)
					return why
				}
				vw.waiting(w)
			case r.err != nil:
				if runCtx.Err() == nil {
					fmt.Fprintf(w.a.stderr, "workshop: %v\n", r.err)
				}
			case r.v.quick:
				vw.quick(w, r.v)
			default:
				w.last, w.focus = r.v, 0
				if res, ok := r.v.failing(); ok {
					w.focus = res.N
				}
				for _, res := range r.v.st.Tasks {
					if res.N == w.chosen && !res.Done {
						w.focus = w.chosen
					}
				}
				vw.full(w, r.v)
			}
		}
	}
}

// start runs the quick run (when a task is in progress) and then the full
// one, and sends their verdicts; the channel closes when both are done.
func (w *watcher) start(ctx context.Context, vw *view, why string) chan runResult {
	w.run++
	step, focus := w.step, w.focus
	var tk course.Task
	if w.last != nil && focus != 0 {
		tk = w.last.task(focus)
	}
	quick := len(tk.Patterns) > 0
	vw.started(w, why, quick)
	out := make(chan runResult, 2)
	go func() {
		defer close(out)
		if quick {
			st, err := course.QuickTask(ctx, w.a.g, w.a.root, step, tk)
			if err != nil {
				out <- runResult{err: err}
				return
			}
			out <- runResult{v: &verdict{step: step, tasks: w.last.tasks, st: st, quick: true}}
		}
		v, err := w.a.fullRun(ctx, step)
		out <- runResult{v: v, err: err}
	}()
	return out
}

// moveOn returns the step to watch next (as the n key finds it) when the
// step just checked is done and the learner did not name it.
func (w *watcher) moveOn() (course.Step, bool) {
	if w.named || w.last == nil || !w.last.st.Finished() {
		return course.Step{}, false
	}
	return w.a.nextNotDone(w.step)
}

// switchTo watches another step, from its first run.
func (w *watcher) switchTo(step course.Step) {
	w.step, w.last, w.focus, w.chosen = step, nil, 0, 0
}

// drain waits for a run to end (its context is cancelled): no go command
// outlives the watcher.
func drain(results chan runResult) {
	if results == nil {
		return // the run had ended
	}
	for range results {
	}
}

// poll watches the step's Go files, and signals when their content changes:
// not on a save of the same bytes (a touch), nor on a README or a hint.
func (w *watcher) poll(ctx context.Context) (<-chan struct{}, func()) {
	ctx, cancel := context.WithCancel(ctx)
	changes := make(chan struct{}, 1)
	done := make(chan struct{})
	dir := w.step.Dir
	go func() {
		defer close(done)
		before := goSum(dir)
		t := time.NewTicker(pollEvery)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			if now := goSum(dir); now != before {
				before = now
				select {
				case changes <- struct{}{}:
				default:
				}
			}
		}
	}()
	return changes, func() { cancel(); <-done }
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
