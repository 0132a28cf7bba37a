package main

// watch's live screen, on a terminal: redrawn in place after each run and
// each key, ✓ and ✗ in colour (unless NO_COLOR is set), the run number and
// its time, which run the verdict comes from, the task in progress with its
// first failure, and keys read in raw mode — h the next hint, n the next
// task (or step, once the step is done), r run again, q (or Ctrl-C) quit,
// Ctrl-Z stop (fg brings the screen back).

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"time"

	"golang.org/x/term"

	"github.com/icecreamcorp/go-cancellation-workshop/internal/workshop/course"
)

// A terminal is what watch needs to know of where it runs; tests fake it.
type terminal struct {
	isTerminal bool
	keys       io.Reader                          // the keyboard: read in raw mode
	makeRaw    func() (restore func(), err error) // raw mode on; restore puts it back
	noColor    bool                               // NO_COLOR is set: no colours
	// stop stops the job as Ctrl-Z would, until fg continues it (jobStop);
	// nil where there is no job control: Ctrl-Z then does nothing.
	stop func()
}

// osTerminal is the process's terminal: watch draws a screen only when both
// standard input and output are one.
func osTerminal() terminal {
	in, out := int(os.Stdin.Fd()), int(os.Stdout.Fd())
	return terminal{
		isTerminal: term.IsTerminal(in) && term.IsTerminal(out),
		keys:       os.Stdin,
		makeRaw: func() (func(), error) {
			old, err := term.MakeRaw(in)
			if err != nil {
				return nil, err
			}
			vtOff := vtOutput(os.Stdout)
			return func() { _ = term.Restore(in, old); vtOff() }, nil
		},
		noColor: os.Getenv("NO_COLOR") != "",
		stop:    jobStop(),
	}
}

const (
	clearScreen = "\x1b[H\x1b[2J"
	hideCursor  = "\x1b[?25l"
	showCursor  = "\x1b[?25h"
	ctrlC       = 3
	ctrlZ       = 0x1a
)

// screen runs the watcher with the live screen, in raw mode, and puts the
// terminal back however it ends (q, Ctrl-C, a signal), and while Ctrl-Z
// has the job stopped.
func (w *watcher) screen(ctx context.Context) int {
	a := w.a
	restore, err := a.term.makeRaw()
	if err != nil {
		fmt.Fprintf(a.stderr, "workshop: the terminal cannot take keys (%v): watching without them\n", err)
		return w.loop(ctx, &view{a: a})
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	out := crlf{a.stdout}
	// Raw mode: "\n" no longer returns the carriage; nothing may write
	// below the screen without crlf.
	stdout, stderr := a.stdout, a.stderr
	a.stdout, a.stderr = out, crlf{a.stderr}
	defer func() { a.stdout, a.stderr = stdout, stderr }()
	fmt.Fprint(out, hideCursor)
	defer func() {
		fmt.Fprint(out, showCursor)
		restore()
	}()
	sv := &view{a: a, screen: true, color: !a.term.noColor, keyCh: make(chan byte)}
	if a.term.stop != nil {
		// Raw mode keeps the terminal from stopping the job on Ctrl-Z: the
		// screen does it, with the terminal as it was, and takes it back
		// when fg continues the job (key then redraws the screen).
		sv.suspend = func() {
			fmt.Fprint(out, showCursor+"\n")
			restore()
			a.term.stop()
			restore = func() {}
			if r, err := a.term.makeRaw(); err == nil {
				restore = r
			}
			fmt.Fprint(out, hideCursor)
		}
	}
	keysDone := make(chan struct{})
	readCtx, stopKeys := context.WithCancel(ctx)
	go sv.readKeys(readCtx, a.term.keys, keysDone)
	code := w.loop(ctx, sv)
	stopKeys()
	// The reader may be blocked in Read on the keyboard: it ends with the
	// process (or, in tests, when the fake keyboard closes).
	if c, ok := a.term.keys.(io.Closer); ok && a.term.keys != os.Stdin {
		_ = c.Close()
		<-keysDone
	}
	fmt.Fprintln(out)
	return code
}

// readKeys sends each byte the keyboard gives until it ends or ctx does.
func (s *view) readKeys(ctx context.Context, r io.Reader, done chan struct{}) {
	defer close(done)
	buf := make([]byte, 1)
	for {
		n, err := r.Read(buf)
		if n == 1 {
			select {
			case s.keyCh <- buf[0]:
			case <-ctx.Done():
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// A view shows what a watcher does: on a terminal a screen redrawn in place,
// with keys; elsewhere (a pipe, an editor's panel) each verdict appended.
type view struct {
	a       *app
	screen  bool
	color   bool
	keyCh   chan byte // the keys pressed; nil without a screen
	suspend func()    // Ctrl-Z; nil: no job control
	status  string    // what runs, or which run the verdict shown comes from
	shown   *verdict  // the verdict on the screen
	from    int       // the run it comes from
	body    string    // its report
	note    string    // a hint or a message, under the verdict
	at      time.Time
}

// started shows that a run begins.
func (s *view) started(w *watcher, why string, quick bool) {
	s.at = time.Now()
	if quick {
		s.status = fmt.Sprintf("%s — running task %d's tests alone, without -race…", why, w.focus)
	} else {
		s.status = fmt.Sprintf("%s — running go vet, then every test with -race…", why)
	}
	if !s.screen {
		fmt.Fprintf(s.a.stdout, "\n──── run %d at %s: %s ────\n", w.run, s.at.Format("15:04:05"), s.status)
		return
	}
	if s.shown != nil && s.shown.step.Name != w.step.Name {
		s.shown, s.body = nil, "" // another step's
	}
	if s.shown != nil {
		s.status += fmt.Sprintf("\nBelow, until it ends: run %d's verdict, from before.", s.from)
	}
	s.draw(w)
}

// quick shows the quick run's verdict: the task in progress alone.
func (s *view) quick(w *watcher, v *verdict) {
	var b bytes.Buffer
	res := v.st.Tasks[0]
	fmt.Fprintf(&b, "  %s task %d  %s\n\n", mark(res.Done), res.N, v.task(res.N).Title)
	if !res.Done {
		s.a.failure(&b, v, res, 14)
	} else {
		fmt.Fprintf(&b, "✓ task %d's tests pass (without -race): waiting for the full run.\n", res.N)
	}
	s.show(w, v, fmt.Sprintf("Quick run (task %d alone, without -race): go vet and every test with -race are running, and may change it", res.N), b.String())
}

// full shows the full run's verdict, as check reports it.
func (s *view) full(w *watcher, v *verdict) {
	status := "Full run: go vet, then every test with -race"
	if v.raceNote != "" {
		status = "Full run: go vet, then every test (without -race: " + v.raceNote + ")"
	}
	var b bytes.Buffer
	s.a.report(&b, v)
	s.show(w, v, status, b.String())
}

func (s *view) show(w *watcher, v *verdict, status, body string) {
	s.shown, s.from, s.status, s.body, s.note = v, w.run, status, body, ""
	if !s.screen {
		fmt.Fprintf(s.a.stdout, "%s\n\n%s\n\n", status, strings.TrimRight(body, "\n"))
		return
	}
	s.draw(w)
}

// waiting shows that nothing runs: watch waits for a save.
func (s *view) waiting(w *watcher) {
	if !s.screen {
		fmt.Fprintf(s.a.stdout, "Watching %s: save a Go file to check again (Ctrl-C to stop).\n", w.step.Name)
		return
	}
	s.draw(w)
}

// key acts on a key the learner pressed on the screen.
func (s *view) key(w *watcher, k byte) (quit, rerun bool) {
	switch k {
	case 'q', 'Q', ctrlC:
		return true, false
	case 'r', 'R':
		return false, true
	case 'h', 'H':
		s.note = s.hint(w)
	case 'n', 'N':
		rerun = s.next(w)
	case ctrlZ:
		if s.suspend == nil {
			return false, false
		}
		s.suspend()
	default:
		return false, false
	}
	s.draw(w)
	return false, rerun
}

// hint is the next hint of the task in progress, or go vet's finding when
// that is all that is left.
func (s *view) hint(w *watcher) string {
	v := w.last
	switch {
	case v == nil:
		return "The first run has not ended yet: ask again in a moment."
	case v.st.Finished():
		return w.step.Name + " is done: nothing to hint at."
	case v.st.Vet != "" && w.focus == 0:
		return "What go vet says — no task's hint is about it:\n\n" + indentText(limitLines(s.a.fromWD(v.st.Vet), 12), "  ")
	}
	tk := v.task(w.focus)
	hints, err := w.step.ReadHints(tk)
	if err != nil || len(hints) == 0 {
		return fmt.Sprintf("Task %d has no hints: the finished code is in solutions/%s.", tk.N, w.step.Name)
	}
	_, text := s.a.nextHint(w.step, tk, hints)
	return strings.TrimRight(text, "\n")
}

// next moves to the next task not done (n), or, once the step is done, to
// the next step; it reports whether that needs a run.
func (s *view) next(w *watcher) bool {
	v := w.last
	if v == nil {
		return false
	}
	if v.st.Finished() {
		if next, ok := w.a.nextNotDone(w.step); ok {
			w.switchTo(next)
			s.note = "Now watching " + w.step.Name + "."
			return true
		}
		s.note = "Every step is done."
		return false
	}
	n := len(v.st.Tasks)
	for i := range v.st.Tasks {
		if v.st.Tasks[i].N != w.focus {
			continue
		}
		for j := 1; j <= n; j++ {
			if r := v.st.Tasks[(i+j)%n]; !r.Done {
				w.focus, w.chosen = r.N, r.N
				break
			}
		}
		break
	}
	tk := v.task(w.focus)
	s.note = fmt.Sprintf("Task in progress: task %d, %s — the next save runs its tests first.\n\n%s", tk.N, tk.Title, indentText(limitLines(taskText(tk), 12), "  "))
	return false
}

func (s *view) draw(w *watcher) {
	var b strings.Builder
	b.WriteString(clearScreen)
	fmt.Fprintf(&b, "go tool workshop watch %s — run %d at %s\n", w.step.Name, w.run, s.at.Format("15:04:05"))
	fmt.Fprintf(&b, "%s\n\n", s.status)
	if s.body != "" {
		b.WriteString(s.paint(strings.TrimRight(s.body, "\n")))
		b.WriteString("\n\n")
	}
	if s.note != "" {
		b.WriteString(s.note)
		b.WriteString("\n\n")
	}
	b.WriteString("h hint · n next task · r run again · q quit")
	fmt.Fprint(s.a.stdout, b.String())
}

// paint colours the marks: ✓ green, ✗ red.
func (s *view) paint(text string) string {
	if !s.color {
		return text
	}
	return strings.NewReplacer("✓", "\x1b[32m✓\x1b[0m", "✗", "\x1b[31m✗\x1b[0m").Replace(text)
}

// crlf writes "\r\n" for each "\n": a terminal in raw mode does not return
// the carriage by itself.
type crlf struct{ w io.Writer }

func (c crlf) Write(p []byte) (int, error) {
	if _, err := c.w.Write(bytes.ReplaceAll(p, []byte("\n"), []byte("\r\n"))); err != nil {
		return 0, err
	}
	return len(p), nil
}

// nextNotDone returns the first step after step, in the course's order and
// then from the start, that is not done as far as the results cache knows (a
// step with no result cached counts as not done).
func (a *app) nextNotDone(step course.Step) (course.Step, bool) {
	i := slices.IndexFunc(a.steps, func(s course.Step) bool { return s.Name == step.Name })
	for j := 1; j < len(a.steps); j++ {
		next := a.steps[(i+j)%len(a.steps)]
		hash, err := course.StepHash(a.root, next)
		if err != nil {
			return next, true
		}
		if st, ok := a.cache().Load(hash); !ok || !st.Finished() {
			return next, true
		}
	}
	return course.Step{}, false
}
