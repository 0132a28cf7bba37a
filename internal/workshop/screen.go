package main

// watch's live screen on a terminal, as README.md's watch section shows it:
// keys read in raw mode, the terminal put back however watch ends.

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

// onTerminal runs the watcher with the live screen, in raw mode, and puts
// the terminal back however it ends (q, Ctrl-C, a signal), and while Ctrl-Z
// has the job stopped.
func (w *watcher) onTerminal(ctx context.Context) int {
	a := w.a
	restore, err := a.term.makeRaw()
	if err != nil {
		fmt.Fprintf(a.stderr, "workshop: the terminal cannot take keys (%v): watching without them\n", err)
		return w.loop(ctx)
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
	w.screen, w.color, w.keys = true, !a.term.noColor, make(chan byte)
	if a.term.stop != nil {
		// Raw mode keeps the terminal from stopping the job on Ctrl-Z: the
		// screen does it, with the terminal as it was, and takes it back
		// when fg continues the job (key then redraws the screen).
		w.suspend = func() {
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
	// The key reader may be blocked in Read on the keyboard when the loop
	// ends: it ends with the process (in tests, when the fake keyboard closes).
	readCtx, stopKeys := context.WithCancel(ctx)
	defer stopKeys()
	go w.readKeys(readCtx, a.term.keys)
	code := w.loop(ctx)
	fmt.Fprintln(out)
	return code
}

// readKeys sends each byte the keyboard gives until it ends or ctx does.
func (w *watcher) readKeys(ctx context.Context, r io.Reader) {
	buf := make([]byte, 1)
	for {
		n, err := r.Read(buf)
		if n == 1 {
			select {
			case w.keys <- buf[0]:
			case <-ctx.Done():
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// key acts on a key the learner pressed on the screen; ok when the watcher
// is to run again, for why, or quit ("").
func (w *watcher) key(k byte) (why string, ok bool) {
	switch k {
	case 'q', 'Q', ctrlC:
		return "", true
	case 'r', 'R':
		return "run again (r)", true
	case 'h', 'H':
		w.note = w.hint()
	case 'n', 'N':
		if why, ok := w.next(); ok {
			return why, true
		}
	case ctrlZ:
		if w.suspend == nil {
			return "", false
		}
		w.suspend()
	default:
		return "", false
	}
	w.draw()
	return "", false
}

// hint is the next hint of the task in progress, as hint shows it.
func (w *watcher) hint() string {
	v := w.last
	if v == nil {
		return "The first run has not ended yet: ask again in a moment."
	}
	var b strings.Builder
	if err := w.a.showHint(&b, w.step, v.st, v.tasks, w.focus, false); err != nil {
		return err.Error()
	}
	return strings.TrimRight(b.String(), "\n")
}

// next moves to the next task not done (n), or, once the step is done, to
// the next step: then ok, for a run of it.
func (w *watcher) next() (why string, ok bool) {
	v := w.last
	switch {
	case v == nil:
		return "", false
	case v.st.Finished():
		next, ok := w.a.nextNotDone(w.step)
		if !ok {
			w.note = "Every step is done."
			return "", false
		}
		w.note = "Now watching " + next.Name + "."
		return w.switchTo(next), true
	}
	tasks := v.st.Tasks
	i := slices.IndexFunc(tasks, func(r course.TaskResult) bool { return r.N == w.focus })
	for j := 1; j <= len(tasks); j++ {
		if r := tasks[(i+j)%len(tasks)]; !r.Done {
			w.focus, w.chosen = r.N, r.N
			break
		}
	}
	if w.focus == 0 {
		w.note = "No task's tests fail: fix what the verdict above says."
		return "", false
	}
	tk := taskN(v.tasks, w.focus)
	w.note = fmt.Sprintf("Task in progress: task %d, %s — the next save runs its tests first.\n\n%s", tk.N, tk.Title, indentText(limitLines(taskText(tk), 12), "  "))
	return "", false
}

func (w *watcher) draw() {
	var b strings.Builder
	b.WriteString(clearScreen)
	fmt.Fprintf(&b, "go tool workshop watch %s — run %d at %s\n", w.step.Name, w.run, w.at.Format("15:04:05"))
	fmt.Fprintf(&b, "%s\n\n", w.status)
	if w.body != "" {
		b.WriteString(w.paint(strings.TrimRight(w.body, "\n")))
		b.WriteString("\n\n")
	}
	if w.note != "" {
		b.WriteString(w.note)
		b.WriteString("\n\n")
	}
	b.WriteString("h hint · n next task · r run again · q quit")
	fmt.Fprint(w.a.stdout, b.String())
}

// paint colours the marks: ✓ green, ✗ red.
func (w *watcher) paint(text string) string {
	if !w.color {
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
