package abort

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// call is a function running in a goroutine of its own, so that a test can
// ask whether it has returned yet without blocking on it.
type call[T any] struct {
	done chan struct{}
	got  T // what the function returned; read it only once done is closed
}

// start runs f in a new goroutine.
func start[T any](f func() T) *call[T] {
	c := &call[T]{done: make(chan struct{})}
	go func() {
		defer close(c.done)
		c.got = f()
	}()
	return c
}

// returned reports, without waiting, whether the call has returned. Inside a
// synctest bubble, call synctest.Wait first so that the call has run as far
// as it can.
func (c *call[T]) returned() bool {
	select {
	case <-c.done:
		return true
	default:
		return false
	}
}

// wait waits at most limit for the call to return, and reports whether it
// did. Inside a synctest bubble the limit is virtual time, so a long limit
// costs nothing.
func (c *call[T]) wait(limit time.Duration) bool {
	timer := time.NewTimer(limit)
	defer timer.Stop()
	select {
	case <-c.done:
		return true
	case <-timer.C:
		return false
	}
}

// outcome is what a function returning (T, error) returned.
type outcome[T any] struct {
	value T
	err   error
}

func (o outcome[T]) String() string { return fmt.Sprintf("(%#v, %v)", o.value, o.err) }

// opaqueContext is a context the context package knows nothing about: no
// AfterFunc method, no context of its own inside. To watch one, the package
// has to start a goroutine that waits on its Done channel.
type opaqueContext struct{ done chan struct{} }

func (opaqueContext) Deadline() (time.Time, bool) { return time.Time{}, false }
func (c opaqueContext) Done() <-chan struct{}     { return c.done }
func (opaqueContext) Value(any) any               { return nil }
func (c opaqueContext) Err() error {
	select {
	case <-c.done:
		return context.Canceled
	default:
		return nil
	}
}

// childEnv, set in its environment, makes the test binary a child that runs
// one test for runInChild.
const childEnv = "ABORT_TEST_CHILD"

// inChild reports whether this test binary is a child started by runInChild.
func inChild() bool { return os.Getenv(childEnv) != "" }

// runInChild runs t's test again in a child process — this test binary,
// started again — so that a panic on a goroutine the test did not start ends
// the child, not every test. It returns the child's failure output (empty if
// it passed) or, if it crashed, the panic and where it happened in this
// folder.
func runInChild(t *testing.T) (failed, crash string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^"+regexp.QuoteMeta(t.Name())+"$", "-test.count=1", "-test.timeout=1m")
	cmd.Env = append(os.Environ(), childEnv+"=1")
	out, err := cmd.CombinedOutput()
	if err == nil {
		return "", ""
	}
	lines := strings.Split(string(out), "\n")
	here, _ := os.Getwd() // go test runs a package's tests in its folder
	for i, line := range lines {
		if strings.HasPrefix(line, "panic: ") || strings.HasPrefix(line, "fatal error: ") {
			crash = line
			for _, frame := range lines[i:] {
				if file, _, ok := strings.Cut(strings.TrimSpace(frame), " "); ok && filepath.Dir(file) == here {
					return "", crash + " at " + filepath.Base(file)
				}
			}
			return "", crash
		}
	}
	report := strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(string(out)), "FAIL"))
	if report == "" {
		report = err.Error()
	}
	return report, ""
}
