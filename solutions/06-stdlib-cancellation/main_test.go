package platform

// The child processes of tasks 5 and 6 (report generators, a service) are
// this test binary, run again, as os/exec tests itself. With
// PLATFORM_TEST_HELPER in its environment, TestMain runs no test: the binary
// plays the helper program of that name and exits. A helper tells its test
// what happens to it over a link (link_test.go), so no test guesses with a
// sleep, and every helper, grandchildren included, exits with its test.

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

const (
	helperEnv = "PLATFORM_TEST_HELPER" // the helper program to play
	linkEnv   = "PLATFORM_TEST_LINK"   // where its test listens
	parentEnv = "PLATFORM_TEST_PARENT" // set in the tests' own process

	// patience bounds every wait on a helper process: only a wrong answer,
	// or a helper that hangs, waits that long.
	patience = 5 * time.Second
)

var helpers = map[string]func() int{
	"report":     helperReport,
	"grandchild": helperGrandchild,
	"service":    helperService,
}

func TestMain(m *testing.M) {
	if name := os.Getenv(helperEnv); name != "" {
		if main, ok := helpers[name]; ok {
			os.Exit(main())
		}
		fmt.Fprintf(os.Stderr, "%s=%s: no helper program of that name\n", helperEnv, name)
		os.Exit(2)
	}
	if parent := os.Getenv(parentEnv); parent != "" {
		// Started by these tests without the helper to play: running the
		// tests here would start more children, and so on.
		fmt.Fprintf(os.Stderr, "started by its own tests (pid %s) without %s: set Cmd.Env to g.Env\n", parent, helperEnv)
		os.Exit(2)
	}
	os.Setenv(parentEnv, strconv.Itoa(os.Getpid()))
	os.Exit(m.Run())
}

// helperEnviron is the environment of the helper program name, linked to l
// (if not nil): this process's own, with extra ("KEY=value") on top.
func helperEnviron(l *link, name string, extra ...string) []string {
	// Under -race a program that exits 0 first sleeps a second
	// (GORACE's atexit_sleep_ms): the helpers have no time to lose.
	gorace := strings.TrimSpace(os.Getenv("GORACE") + " atexit_sleep_ms=0")
	env := append(os.Environ(), helperEnv+"="+name, "GORACE="+gorace)
	if l != nil {
		env = append(env, linkEnv+"="+l.ln.Addr().String())
	}
	return append(env, extra...)
}

// testBinary is the path of this test binary.
func testBinary(t testing.TB) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatalf("os.Executable: %v", err)
	}
	return exe
}
