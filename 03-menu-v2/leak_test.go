package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/icecreamcorp/go-cancellation-workshop/internal/fakestock"
	"github.com/icecreamcorp/go-cancellation-workshop/internal/menutest"
)

// Task 2: the goroutine that calls the stock service must end, even when the
// menu has stopped waiting for its result.
//
// The menu runs in a child process — this test binary, started again — so
// that whatever its goroutine does once the late answer comes, this test can
// report it: a goroutine that panics (a send on a closed channel) ends the
// whole process it runs in, and no test can recover from a panic on a
// goroutine it did not start. The child runs the menu in virtual time, in a
// synctest bubble, and reports before its bubble ends: a goroutine still
// blocked then makes synctest crash the child, after the report is out.
func TestGoroutineEnds(t *testing.T) {
	if os.Getenv(lateAnswerEnv) != "" {
		reportLateAnswer(t) // this is the child
		return
	}
	late := checkLateAnswer(t)

	require.Empty(t, late.Crash,
		"the menu answered, then the stock service answered, and the goroutine that called it crashed the program: %s (task 2: never close the result channel — the goroutine may still send on it; a buffer of one is all the channel needs)", late.Crash)
	require.Empty(t, late.Failed, "the check could not run: %s", late.Failed)
	require.Equal(t, http.StatusGatewayTimeout, late.Code,
		"the stock service held its answer, then was released; menu answered %d: %s; want 504 after 10ms, while the stock service was still held (task 1 first: race the call against a timer, and answer 504 Gateway Timeout when the timer wins)", late.Code, late.Body)
	assert.Empty(t, late.Leak,
		"the menu answered 504, then the stock service answered, and the goroutine that called it is still running: it is blocked sending its result on a channel that nobody will ever receive from again (task 2: make the result channel buffered, with room for one result, so that the send never waits)\n%s", late.Leak)
}

// lateAnswerEnv, set in its environment, makes the test binary the child of
// TestGoroutineEnds; lateAnswerMark starts the line on which it reports.
const (
	lateAnswerEnv  = "MENU_V2_LATE_ANSWER_CHILD"
	lateAnswerMark = "late answer: "
)

// lateResult is what became of the menu's goroutine after a late answer.
type lateResult struct {
	Code   int    // what the menu answered
	Body   string // …and its body
	Leak   string // the goroutines still running after the late answer, or ""
	Crash  string // the panic that ended the child process, or ""
	Failed string // why the check itself could not run, or ""
}

// reportLateAnswer runs lateAnswer in the child, in a synctest bubble, and
// prints its result before the bubble ends.
func reportLateAnswer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b, err := json.Marshal(lateAnswer(t))
		require.NoError(t, err, "encoding the result")
		fmt.Printf("\n%s%s\n", lateAnswerMark, b)
	})
}

// lateAnswerInChild runs lateAnswer in a child process and returns what it
// reported, or how it died.
func lateAnswerInChild() lateResult {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestGoroutineEnds$", "-test.count=1", "-test.timeout=1m")
	cmd.Env = append(os.Environ(), lateAnswerEnv+"=1")
	out, err := cmd.CombinedOutput()
	lines := strings.Split(string(out), "\n")
	for _, line := range lines {
		if report, ok := strings.CutPrefix(line, lateAnswerMark); ok {
			var res lateResult
			if err := json.Unmarshal([]byte(report), &res); err != nil {
				return lateResult{Failed: fmt.Sprintf("the child's report %q: %v", report, err)}
			}
			return res
		}
	}
	// No report: the child died. Say how, and where in this folder: go test
	// runs a package's tests in its folder.
	here, _ := os.Getwd()
	for i, line := range lines {
		if strings.HasPrefix(line, "panic: ") || strings.HasPrefix(line, "fatal error: ") {
			crash := line
			for _, frame := range lines[i:] {
				if file, _, ok := strings.Cut(strings.TrimSpace(frame), " "); ok && filepath.Dir(file) == here {
					crash += " at " + filepath.Base(file)
					break
				}
			}
			return lateResult{Crash: crash}
		}
	}
	return lateResult{Failed: fmt.Sprintf("the child process (%v) reported nothing:\n%s", err, out)}
}

// lateAnswer serves one GET /menu, with a 10ms timeout, while the stock
// service holds the request; 10ms later, when a menu that races a timer has
// answered, it lets the stock service answer, and waits until everything
// has come to rest. It returns what the menu answered and which goroutines
// started meanwhile are still running. Call it inside a synctest bubble:
// the menu's time is virtual.
func lateAnswer(t testing.TB) lateResult {
	t.Helper()
	before := goleak.IgnoreCurrent()

	release := make(chan struct{})
	fake := fakestock.New(fakestock.Reply{})
	stock := menutest.ServeStock(t, fake, menutest.HoldUntil(release, fake))
	menu := menutest.Start(newMenuService(stock.Client(), menutest.StockURL, 10*time.Millisecond).handler())

	// A menu that races a 10ms timer has answered now; one that waits for
	// the stock service (the starter) answers once it is released.
	time.Sleep(10 * time.Millisecond)
	synctest.Wait()
	close(release)
	synctest.Wait()
	if !menu.Answered() {
		return lateResult{Failed: fmt.Sprintf("%v, though the stock service had answered", menu)}
	}
	res := lateResult{Code: menu.Rec.Code, Body: menutest.Body(menu.Rec)}
	// The fake's server and the menu's kept-alive connection to it are not
	// the menu's goroutines: close them before counting.
	if err := stock.Close(); err != nil {
		return lateResult{Failed: fmt.Sprintf("closing the fake stock service: %v", err)}
	}
	synctest.Wait()
	if leak := goleak.Find(before); leak != nil {
		res.Leak = leak.Error()
	}
	return res
}

// leaks remembers what the late answer did, once per test binary, so that
// the tests that run the menu inside a synctest bubble can refuse to run if
// the menu's goroutine would block forever or crash there.
var leaks struct {
	mu      sync.Mutex
	checked bool
	late    lateResult
}

// checkLateAnswer runs lateAnswerInChild once, and returns what it found.
func checkLateAnswer(t *testing.T) lateResult {
	t.Helper()
	leaks.mu.Lock()
	defer leaks.mu.Unlock()
	if !leaks.checked {
		leaks.checked, leaks.late = true, lateAnswerInChild()
	}
	return leaks.late
}

// requireNoLeak stops t at once if the menu's goroutine does not end
// cleanly after the menu has answered 504 — blocked forever, or crashed — as
// TestGoroutineEnds (run here if it has not run yet) found. Inside a
// synctest bubble, or over real sockets, either would crash the test binary,
// and every other test with it. Call it first in a test, outside any
// synctest bubble.
func requireNoLeak(t *testing.T) {
	t.Helper()
	switch late := checkLateAnswer(t); {
	case late.Crash != "":
		require.Fail(t, "not running this test: once the stock service answers after the menu has given up, the menu's goroutine crashes the test binary ("+late.Crash+") (task 2: run go test -run 'TestGoroutineEnds' . and read what it reports)")
	case late.Leak != "":
		require.Fail(t, "not running this test: the menu leaves a goroutine blocked forever after it answers 504, and inside a synctest bubble that would crash the test binary (task 2: run go test -run 'TestGoroutineEnds' . and read what it reports)")
	}
}
