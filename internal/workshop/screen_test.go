package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeTerminal is a terminal for watch's screen: keys written to a pipe,
// raw mode counted.
type fakeTerminal struct {
	keys          *io.PipeWriter
	raw, restored atomic.Int32
	stops         chan string // what the screen showed when Ctrl-Z stopped the job
	out           syncBuffer
	a             *app
	done          chan int
	stop          context.CancelFunc
}

func startScreen(t *testing.T, noColor bool) *fakeTerminal {
	t.Helper()
	root := filepath.Join(t.TempDir(), "course")
	require.NoError(t, os.CopyFS(root, os.DirFS(fixture(t))), "copying the fixture")
	ft := &fakeTerminal{done: make(chan int, 1), stops: make(chan string, 1)}
	a, err := newAppAt(root, t.TempDir(), strings.NewReader(""), &ft.out, &ft.out)
	require.NoError(t, err, "newAppAt")
	pr, pw := io.Pipe()
	t.Cleanup(func() { pw.Close() }) // the key reader's Read ends
	ft.keys, ft.a = pw, a
	a.term = terminal{isTerminal: true, keys: pr, noColor: noColor, makeRaw: func() (func(), error) {
		ft.raw.Add(1)
		return func() { ft.restored.Add(1) }, nil
	}, stop: func() {
		ft.stops <- fmt.Sprintf("raw %d, restored %d, screen ends %q", ft.raw.Load(), ft.restored.Load(), tail(ft.out.String(), len(showCursor+"\r\n")))
	}}
	wctx, stop := context.WithCancel(ctx(t))
	ft.stop = stop
	t.Cleanup(stop)
	go func() { ft.done <- a.watch(wctx, []string{"02"}) }()
	return ft
}

// waitFor waits, boundedly, until the screen has shown what n times.
func (ft *fakeTerminal) waitFor(t *testing.T, what string, n int) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for strings.Count(ft.out.String(), what) < n {
		if time.Now().After(deadline) {
			require.FailNow(t, "the screen did not show "+what, "waited 2 minutes for %q (×%d); screen so far:\n%s", what, n, ft.out.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (ft *fakeTerminal) press(t *testing.T, k string) {
	t.Helper()
	_, err := ft.keys.Write([]byte(k))
	require.NoError(t, err, "pressing %q", k)
}

func (ft *fakeTerminal) exit(t *testing.T) int {
	t.Helper()
	select {
	case code := <-ft.done:
		return code
	case <-time.After(time.Minute):
		require.FailNow(t, "watch did not return within a minute")
		return -1
	}
}

func TestWatchScreen(t *testing.T) {
	t.Parallel()
	ft := startScreen(t, false)
	ft.waitFor(t, "Full run: go vet, then every test with -race", 1)
	out := ft.out.String()
	assert.Contains(t, out, clearScreen, "the screen is redrawn in place")
	assert.Contains(t, out, "go tool workshop watch 02-unsolved — run 1 at ", "the run's number and time")
	assert.Contains(t, out, "\x1b[31m✗\x1b[0m task 1  Double a number", "✗ in red")
	assert.Contains(t, out, "First failure — task 1: Double a number", "the task in progress and its first failure")
	assert.Contains(t, out, "h hint · n next task · r run again · q quit", "the keys")
	assert.Contains(t, out, "\r\n", "raw mode: every line returns the carriage")
	assert.Equal(t, int32(1), ft.raw.Load(), "raw mode on")

	ft.press(t, "h")
	ft.waitFor(t, "Multiply.", 1)
	assert.Contains(t, ft.out.String(), "02-unsolved, task 1: Double a number — hint 1 of 1", "h: the task's next hint")

	write(t, ft.a.root, "02-unsolved/double.go", "package double\n\nfunc Double(n int) int { return 2 * n }\n")
	ft.waitFor(t, "Quick run (task 1 alone, without -race): go vet and every test with -race are running, and may change it", 1)
	ft.waitFor(t, "02-unsolved is done", 1)
	out = ft.out.String()
	assert.Contains(t, out, "run 2 at ", "the save's run is run 2")
	assert.Contains(t, out, "\x1b[32m✓\x1b[0m task 1  Double a number", "✓ in green")
	quick, full := strings.Index(out, "Quick run (task 1"), strings.LastIndex(out, "Full run: go vet")
	assert.Less(t, quick, full, "the quick verdict first, the full one after it")

	ft.press(t, "r")
	ft.waitFor(t, "run again (r)", 1)
	ft.waitFor(t, "Below, until it ends: run 2's verdict, from before.", 1) // not a ✓ of this run
	ft.waitFor(t, "02-unsolved is done", 2)
	ft.press(t, "q")
	assert.Equal(t, exitOK, ft.exit(t), "q quits")
	assert.Equal(t, int32(1), ft.restored.Load(), "the terminal is restored")
	assert.True(t, strings.HasSuffix(ft.out.String(), "\r\n"+showCursor), "the cursor is back")
}

// TestWatchScreenCtrlZ: raw mode keeps the terminal from stopping the job
// on Ctrl-Z, so the screen does: the terminal and cursor back as they were,
// the job stopped, then raw mode again and the screen redrawn when fg
// continues it.
func TestWatchScreenCtrlZ(t *testing.T) {
	t.Parallel()
	ft := startScreen(t, true)
	ft.waitFor(t, "Full run: go vet, then every test with -race", 1)
	drawn := strings.Count(ft.out.String(), clearScreen)
	ft.press(t, "\x1a")
	select {
	case got := <-ft.stops:
		assert.Equal(t, fmt.Sprintf("raw 1, restored 1, screen ends %q", showCursor+"\r\n"), got, "Ctrl-Z: want the terminal restored and the cursor shown before the job stops")
	case <-time.After(time.Minute):
		require.FailNow(t, "Ctrl-Z did not stop the job within a minute")
	}
	ft.waitFor(t, clearScreen, drawn+1)
	assert.Equal(t, int32(2), ft.raw.Load(), "after fg: raw mode on again")
	assert.Contains(t, ft.out.String()[strings.LastIndex(ft.out.String(), showCursor):], hideCursor, "after fg: the cursor hidden again")
	ft.press(t, "q")
	assert.Equal(t, exitOK, ft.exit(t), "q quits after a Ctrl-Z")
	assert.Equal(t, int32(2), ft.restored.Load(), "the terminal restored on quitting too")

	var w watcher
	_, again := w.key(ctrlZ)
	assert.False(t, again, "Ctrl-Z without job control (Windows): nothing happens")
}

func tail(s string, n int) string { return s[max(0, len(s)-n):] }

// The marks in colour, or not at all when NO_COLOR is set.
func TestWatchScreenColour(t *testing.T) { // not parallel: it sets NO_COLOR
	text := "  ✓ task 1\n  ✗ task 2"
	assert.Equal(t, "  \x1b[32m✓\x1b[0m task 1\n  \x1b[31m✗\x1b[0m task 2", (&watcher{color: true}).paint(text), "✓ green, ✗ red")
	assert.Equal(t, text, (&watcher{color: false}).paint(text), "NO_COLOR: no colour")
	t.Setenv("NO_COLOR", "1")
	assert.True(t, osTerminal().noColor, "NO_COLOR set: noColor")
}

// Ctrl-C (a byte, in raw mode) quits at once, even while a run goes on,
// and the terminal is put back.
func TestWatchScreenCtrlC(t *testing.T) {
	t.Parallel()
	ft := startScreen(t, true)
	ft.waitFor(t, "first run — running go vet, then every test with -race…", 1)
	ft.press(t, "\x03")
	assert.Equal(t, exitOK, ft.exit(t), "Ctrl-C quits")
	assert.Equal(t, int32(1), ft.restored.Load(), "the terminal is restored")
}

func TestWatchScreenRestoredOnSignal(t *testing.T) {
	t.Parallel()
	ft := startScreen(t, false)
	ft.waitFor(t, "first run — running go vet", 1)
	ft.stop() // as SIGINT or SIGTERM end it
	assert.Equal(t, exitOK, ft.exit(t), "watch ends with its context")
	assert.Equal(t, int32(1), ft.restored.Load(), "the terminal is restored")
}

// Only a change in the content of a Go file of the step runs the checks
// again: not a README, not a hint, not a touch.
func TestWatchSeesContentOnly(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write(t, dir, "a.go", "package a\n")
	write(t, dir, "README.md", "# A\n")
	before := goSum(dir)
	write(t, dir, "README.md", "# A, edited\n")
	write(t, dir, "hints/task-1.md", "A hint.\n")
	write(t, dir, "hints/x.go", "package hints\n")
	later := time.Now().Add(time.Hour)
	require.NoError(t, os.Chtimes(filepath.Join(dir, "a.go"), later, later), "touch a.go")
	write(t, dir, "b_test.go", "package a\n")
	withTest := goSum(dir)
	assert.NotEqual(t, before, withTest, "a new Go file is a change")
	require.NoError(t, os.Remove(filepath.Join(dir, "b_test.go")))
	assert.Equal(t, before, goSum(dir), "a README, hints and a touch are no change")
	write(t, dir, "a.go", "package a\n\nvar X = 1\n")
	assert.NotEqual(t, before, goSum(dir), "new content is a change")
}

// n moves the task in progress to the next task not done: the next save
// runs that task's tests first, and it stays in progress until it is done.
func TestWatchScreenNext(t *testing.T) {
	t.Parallel()
	root, ft := watchFixture(t, "01", nil)

	ft.waitFor(t, "First failure — task 1: Add two numbers", 1)
	ft.press(t, "n")
	ft.waitFor(t, "Task in progress: task 2, Subtract — the next save runs its tests first.", 1)
	assert.Contains(t, ft.out.String(), "Make `Sub` subtract.", "n shows the task's README section")
	write(t, root, "01-solved/calc.go", "package calc\n\nfunc Add(a, b int) int { return 0 }\n\nfunc Sub(a, b int) int { return a - b }\n")
	ft.waitFor(t, "running task 2's tests alone, without -race", 1)
	ft.waitFor(t, "Quick run (task 2 alone", 1)
	ft.press(t, "q")
	assert.Equal(t, exitOK, ft.exit(t), "q quits")
}

// n on a step that is done moves to the next step not done, as the
// overview's Next does: from the last step back to an earlier one.
func TestWatchScreenNextStep(t *testing.T) {
	t.Parallel()
	_, ft := watchFixture(t, "02", map[string]string{"02-unsolved/double.go": "package double\n\nfunc Double(n int) int { return 2 * n }\n"})

	ft.waitFor(t, "02-unsolved is done", 1)
	ft.press(t, "n")
	ft.waitFor(t, "Now watching 01-solved.", 1)
	ft.press(t, "q")
	assert.Equal(t, exitOK, ft.exit(t), "q quits")
}

// watchFixture starts watch STEP on a fake terminal, in a copy of the
// fixture course whose 01-solved has two tasks not done (Add and Sub), with
// files written over it.
func watchFixture(t *testing.T, step string, files map[string]string) (string, *fakeTerminal) {
	t.Helper()
	root := filepath.Join(t.TempDir(), "course")
	require.NoError(t, os.CopyFS(root, os.DirFS(fixture(t))), "copying the fixture")
	write(t, root, "01-solved/calc.go", "package calc\n\nfunc Add(a, b int) int { return 0 }\n\nfunc Sub(a, b int) int { return 0 }\n")
	for name, content := range files {
		write(t, root, name, content)
	}
	ft := &fakeTerminal{done: make(chan int, 1), stops: make(chan string, 1)}
	a, err := newAppAt(root, t.TempDir(), strings.NewReader(""), &ft.out, &ft.out)
	require.NoError(t, err, "newAppAt")
	pr, pw := io.Pipe()
	t.Cleanup(func() { pw.Close() }) // the key reader's Read ends
	a.term = terminal{isTerminal: true, keys: pr, makeRaw: func() (func(), error) { return func() {}, nil }}
	ft.keys, ft.a = pw, a
	go func() { ft.done <- a.watch(ctx(t), []string{step}) }()
	return root, ft
}
