package platform

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/icecreamcorp/go-cancellation-workshop/internal/leakcheck"
)

// The child processes of tasks 5 and 6 (report generators, a service) are
// this test binary, run again, as os/exec tests itself: with
// PLATFORM_TEST_HELPER set, TestMain plays the helper program of that name.

const (
	helperEnv = "PLATFORM_TEST_HELPER" // the helper program to play
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
		if main, ok := helpers[name]; ok && os.Getenv(parentEnv) == "" {
			os.Exit(main())
		}
		fmt.Fprintf(os.Stderr, "%s=%s: no such helper, or run with the test's environment too: Cmd.Env = g.Env alone\n", helperEnv, name)
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

// helperEnviron is the environment of the helper program name: this
// process's own but parentEnv, with extra ("KEY=value") on top. Under -race a
// program that exits 0 first sleeps a second (GORACE's atexit_sleep_ms): not helpers.
func helperEnviron(name string, extra ...string) []string {
	env := slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, parentEnv+"=") })
	gorace := strings.TrimSpace(os.Getenv("GORACE") + " atexit_sleep_ms=0")
	return append(append(env, helperEnv+"="+name, "GORACE="+gorace), extra...)
}

// TestShutdown sends real signals to a service (helperService) with a
// request in flight; the other tests of Serve end its ctx in this process.
func TestShutdown(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("os.Process.Signal sends neither SIGINT nor SIGTERM on Windows: try it by hand (the README's Try it for real)")
	}
	begun(t, "Serve", serveEnded)
	leakcheck.Check(t)
	const grace = 100 * time.Millisecond
	for _, tc := range []struct {
		name  string
		sig   os.Signal
		twice bool // send sig again once the shutdown has begun
		grace time.Duration
		exit  string // how the service ends: its ProcessState
		fix   string
	}{
		{name: "SIGINT", sig: os.Interrupt, grace: grace, exit: "exit status 1",
			fix: "signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM), Stopping on its Done(); Shutdown for the grace"},
		{name: "SIGTERM", sig: syscall.SIGTERM, grace: grace, exit: "exit status 1",
			fix: "signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM), Stopping on its Done(); Shutdown for the grace"},
		{name: "second SIGINT", sig: os.Interrupt, twice: true, grace: time.Minute, exit: "signal: interrupt", fix: "call stop() once the first signal arrives; ignore no signal"},
		{name: "SIGHUP", sig: syscall.SIGHUP, grace: time.Minute, exit: "signal: hangup", fix: "list only os.Interrupt and syscall.SIGTERM; ignore no signal"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if strings.HasPrefix(tc.exit, "signal") && ignoredAtStart[tc.sig] {
				t.Skipf("started with %v ignored (nohup, or a shell's background job): run go test from a terminal", tc.sig)
			}
			svc := startService(t, tc.grace)
			sent := time.Now()
			svc.cmd.Process.Signal(tc.sig) // an error means it has exited: the checks below say so
			if stopping := svc.hear("stopping"); tc.sig == syscall.SIGHUP && stopping {
				t.Fatalf("SIGHUP began a graceful shutdown; want it to end the process: %s", tc.fix)
			} else if tc.sig != syscall.SIGHUP && !stopping {
				t.Fatalf("no graceful shutdown on %v: Stopping(r.Context()) still open; want it closed: %s (the service said %q)", tc.sig, tc.fix, svc.said)
			}
			if tc.twice {
				svc.hear("listener closed")
				sent = time.Now()
				svc.cmd.Process.Signal(tc.sig)
			}
			svc.hear("") // to the end
			took := time.Since(sent)
			svc.cmd.Wait()
			want := tc.exit
			if tc.grace == grace {
				want += fmt.Sprintf(" at the grace, %v", grace)
			}
			if got := svc.cmd.ProcessState.String(); got != tc.exit || tc.grace == grace && (took < grace || took > grace+graceSlack) {
				t.Errorf("the service ended %v after %v: %s, want %s: %s (it said %q)", took, tc.sig, got, want, tc.fix, svc.said)
			}
		})
	}
}

const graceEnv = "PLATFORM_TEST_GRACE" // the service's grace period

// ignoredAtStart: by nohup or a shell, not by a Serve that ran in this process (its children would inherit it).
var ignoredAtStart = map[os.Signal]bool{os.Interrupt: signal.Ignored(os.Interrupt), syscall.SIGHUP: signal.Ignored(syscall.SIGHUP)}

// helperService calls Serve on a loopback port, with a handler that says
// when Stopping's channel closes and runs until its context ends, and says
// when the listener closes. It exits 1 if Serve returned an error.
func helperService() int {
	grace, _ := time.ParseDuration(os.Getenv(graceEnv))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Println("cannot listen:", err)
		return 2
	}
	fmt.Println("listening", ln.Addr())
	watched := &watchedListener{Listener: ln, closed: make(chan struct{})}
	go func() { <-watched.closed; fmt.Println("listener closed") }() // after stop(): a second signal is not caught
	err = Serve(context.Background(), watched, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Println("started")
		select {
		case <-Stopping(r.Context()):
			fmt.Println("stopping")
		case <-r.Context().Done():
		}
		<-r.Context().Done()
	}), grace)
	fmt.Println("Serve returned:", err)
	if err != nil {
		return 1
	}
	return 0
}

// service is the helper "service", run by a test.
type service struct {
	cmd  *exec.Cmd
	out  *bufio.Scanner // its stdout and stderr
	said []string       // what the test has read of it
}

// startService starts the service with grace and a request in flight. It is
// killed patience later, or when the test ends, if still running.
func startService(t *testing.T, grace time.Duration) *service {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), patience)
	s := &service{cmd: exec.CommandContext(ctx, os.Args[0])}
	s.cmd.Env = helperEnviron("service", graceEnv+"="+grace.String())
	out, err := s.cmd.StdoutPipe()
	if err == nil {
		s.cmd.Stderr = s.cmd.Stdout
		err = s.cmd.Start()
	}
	if err != nil {
		t.Fatalf("starting the service: %v", err)
	}
	t.Cleanup(func() { cancel(); s.cmd.Wait() })
	s.out = bufio.NewScanner(out)
	if !s.hear("listening ") {
		t.Fatalf("the service never said it was listening (it said %q)", s.said)
	}
	send(t, strings.TrimPrefix(s.said[len(s.said)-1], "listening "), "GET / HTTP/1.1\r\nHost: shop.test\r\n\r\n")
	if !s.hear("started") {
		t.Fatalf("a request never reached the handler: serve h on ln (the service said %q)", s.said)
	}
	return s
}

// hear reads what the service says until a line that begins with what ("":
// none), unless it said one already, and reports whether it did.
func (s *service) hear(what string) bool {
	for _, line := range s.said {
		if what != "" && strings.HasPrefix(line, what) {
			return true
		}
	}
	for s.out.Scan() {
		if s.said = append(s.said, s.out.Text()); what != "" && strings.HasPrefix(s.out.Text(), what) {
			return true
		}
	}
	return false
}
