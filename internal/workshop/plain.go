package main

import (
	"fmt"
	"time"
)

// plainView appends each verdict to the output: for a pipe or an editor's
// panel.
type plainView struct{ a *app }

func (p plainView) started(w *watcher, why string, quick bool) {
	out := p.a.stdout
	if w.run > 1 {
		fmt.Fprintf(out, "\n──── %s ────\n", why)
	}
	fmt.Fprintf(out, "Run %d at %s", w.run, time.Now().Format("15:04:05"))
	if quick {
		fmt.Fprintf(out, ": first task %d's tests alone, without -race; then go vet and every test with -race\n", w.focus)
	} else {
		fmt.Fprintf(out, ": go vet ./%s, then every test with -race\n", w.step.Name)
	}
}

func (p plainView) quick(w *watcher, v *verdict) {
	out := p.a.stdout
	res := v.st.Tasks[0]
	fmt.Fprintf(out, "\nQuick run (task %d alone, without -race): %s task %d  %s\n", res.N, mark(res.Done), res.N, v.task(res.N).Title)
	if !res.Done {
		fmt.Fprintln(out)
		p.a.failure(out, v, res, 16)
	}
	fmt.Fprintf(out, "\nThe full run follows (go vet, every test with -race): it may change this.\n\n")
}

func (p plainView) full(w *watcher, v *verdict) {
	fmt.Fprintf(p.a.stdout, "Full run: ")
	p.a.report(p.a.stdout, v)
}

func (p plainView) waiting(w *watcher) {
	fmt.Fprintf(p.a.stdout, "\nWatching %s: save a Go file to check again (Ctrl-C to stop).\n", w.step.Name)
}

func (plainView) key(*watcher, byte) (bool, bool) { return false, false }
func (plainView) keys() <-chan byte               { return nil }
