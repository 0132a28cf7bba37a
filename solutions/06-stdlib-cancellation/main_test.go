package platform

// The child processes of tasks 5 and 6 — a report generator, a service — are
// this test binary, run again: the os/exec package tests itself the same way.
// When PLATFORM_TEST_HELPER is set in its environment, TestMain runs no tests:
// the binary plays the helper program of that name, then exits. No shell, no
// sleep command: the same programs on every OS.
//
// A helper talks to its test over a link: a loopback TCP connection to a
// listener the test opens (its address is in PLATFORM_TEST_LINK). The helper
// says what happens to it, one line at a time ("ready", "listener closed"),
// and the test waits for those lines instead of guessing with sleeps. When
// the test ends it hangs up, and waits for every helper's end of the link to
// close — the operating system closes it when the process exits — so no
// helper outlives its test, grandchildren included.

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

const (
	helperEnv = "PLATFORM_TEST_HELPER" // the helper program to play
	linkEnv   = "PLATFORM_TEST_LINK"   // where its test listens
	parentEnv = "PLATFORM_TEST_PARENT" // set in the tests' own process

	// patience bounds every wait of a test on a helper process. It is far
	// longer than anything takes on a busy machine; only a wrong answer
	// (or a helper that hangs) ever waits that long.
	patience = 5 * time.Second
)

// helpers are the programs the test binary can play, by name.
var helpers = map[string]func() int{
	"report-done":       helperReportDone,
	"report-failing":    helperReportFailing,
	"report-polite":     helperReportPolite,
	"report-stubborn":   helperReportStubborn,
	"report-orphaning":  helperReportOrphaning,
	"report-grandchild": helperReportGrandchild,
	"service":           helperService,
}

func TestMain(m *testing.M) {
	if name := os.Getenv(helperEnv); name != "" {
		main, ok := helpers[name]
		if !ok {
			fmt.Fprintf(os.Stderr, "%s=%s: no helper program of that name\n", helperEnv, name)
			os.Exit(2)
		}
		os.Exit(main())
	}
	if parent := os.Getenv(parentEnv); parent != "" {
		// Started by these tests, with their environment but no helper
		// to play: whoever started it dropped the environment it was
		// given. Running the tests here would start more children, which
		// would run the tests, and so on. Stop, and say why.
		fmt.Fprintf(os.Stderr, "this test binary was started by its own tests (pid %s) without %s in its environment, so it has no helper to play: the command was not given the environment it was meant to have (task 5: set Cmd.Env to g.Env)\n", parent, helperEnv)
		os.Exit(2)
	}
	os.Setenv(parentEnv, strconv.Itoa(os.Getpid()))
	os.Exit(m.Run())
}

// helperEnviron is the environment of a helper process named name, linked to
// l (if not nil), with extra variables ("KEY=value") on top of this process's own.
func helperEnviron(l *link, name string, extra ...string) []string {
	// Under -race, a program that exits with status 0 first sleeps for a
	// second (GORACE's atexit_sleep_ms), in case another thread has a race
	// to report. The helpers have no time to lose.
	gorace := strings.TrimSpace(os.Getenv("GORACE") + " atexit_sleep_ms=0")
	env := append(os.Environ(), helperEnv+"="+name, "GORACE="+gorace)
	if l != nil {
		env = append(env, linkEnv+"="+l.ln.Addr().String())
	}
	return append(env, extra...)
}

// testBinary is the path of this test binary, for helper processes.
func testBinary(t testing.TB) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatalf("os.Executable: %v: cannot run the test binary as a helper process", err)
	}
	return exe
}

// ---- Helper processes the test starts itself ----

// process is a helper process a test started itself (the report generators
// of task 5 are started by Generator.Run instead).
type process struct {
	cmd      *exec.Cmd
	output   lockedBuffer  // its stdout and stderr
	done     chan struct{} // closed once it has exited, been waited for, and all it said is heard
	exitedAt time.Time     // when; read it once done is closed
}

// startHelper runs this test binary as the helper program name, linked to l.
// When the test ends the process is killed if it is still running, and
// waited for.
func startHelper(t testing.TB, l *link, name string, env ...string) *process {
	t.Helper()
	p := &process{done: make(chan struct{})}
	p.cmd = exec.Command(testBinary(t))
	p.cmd.Env = helperEnviron(l, name, env...)
	p.cmd.Stdout, p.cmd.Stderr = &p.output, &p.output
	p.cmd.WaitDelay = patience // Wait ends even if something held on to the output pipe
	if err := p.cmd.Start(); err != nil {
		t.Fatalf("starting the helper process %s: %v", name, err)
	}
	go func() {
		defer close(p.done)
		p.cmd.Wait()
		p.exitedAt = time.Now()
		l.drain(p.cmd.Process.Pid) // so that, once done is closed, all it said is heard
	}()
	t.Cleanup(func() { p.kill(t) })
	return p
}

// kill kills the process if it is still running, and waits for it.
func (p *process) kill(t testing.TB) {
	select {
	case <-p.done:
		return
	default:
	}
	p.cmd.Process.Kill()
	select {
	case <-p.done:
	case <-time.After(patience):
		t.Errorf("helper process %s killed, but still not waited for after %v", p.cmd, patience)
	}
}

// wait waits at most d for the process to exit, and reports whether it did.
func (p *process) wait(d time.Duration) bool {
	select {
	case <-p.done:
		return true
	case <-time.After(d):
		return false
	}
}

// lockedBuffer is a bytes buffer that os/exec's copying goroutine may write
// while a test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.b.Len() == 0 {
		return "(nothing)"
	}
	return b.b.String()
}
