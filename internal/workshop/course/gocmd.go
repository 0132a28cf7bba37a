package course

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"
)

// Go runs the go command.
type Go struct {
	Dir string   // where it runs: the module's root
	Env []string // added to the environment
	// Log, if set, hears of every command and how long it took.
	Log func(cmd string, took time.Duration)
}

// Run runs `go args…` and returns what it wrote. err is the go command's
// exit status: a failing test makes it 1, so callers read the output.
func (g Go) Run(ctx context.Context, args ...string) (stdout, stderr string, err error) {
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = g.Dir
	if len(g.Env) > 0 {
		cmd.Env = append(os.Environ(), g.Env...)
	}
	cmd.WaitDelay = 10 * time.Second // a test binary may hold the pipes open after go is stopped
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	start := time.Now()
	err = cmd.Run()
	if ctx.Err() != nil {
		err = fmt.Errorf("go %s: stopped: %w", strings.Join(args, " "), context.Cause(ctx))
	}
	if g.Log != nil {
		g.Log("go "+strings.Join(args, " "), time.Since(start))
	}
	return out.String(), errOut.String(), err
}

// TestJSON runs `go test -json args…` and reads its events, one TestRun per
// package; stderr is go's own complaints, if any.
func (g Go) TestJSON(ctx context.Context, args ...string) ([]*TestRun, string) {
	stdout, stderr, _ := g.Run(ctx, append([]string{"test", "-json"}, args...)...)
	return ParseTestJSONPackages(strings.NewReader(stdout)), stderr
}

// RaceProblem says why `go test -race` cannot run here, or returns "": the
// race detector needs cgo, so a C compiler, on most systems.
func (g Go) RaceProblem(ctx context.Context) string {
	out, _, err := g.Run(ctx, "env", "CGO_ENABLED", "CC")
	if err != nil {
		return "go env failed: " + err.Error()
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) < 2 || strings.TrimSpace(lines[0]) != "1" {
		return "cgo is disabled (CGO_ENABLED=0)"
	}
	cc := strings.Fields(lines[1])
	if len(cc) == 0 {
		return "no C compiler (go env CC is empty)"
	}
	if _, err := exec.LookPath(cc[0]); err != nil {
		return fmt.Sprintf("no C compiler (%s is not on the PATH)", cc[0])
	}
	return ""
}

// raceUnsupported reports whether go test's complaint says -race cannot run.
func raceUnsupported(stderr string) bool {
	return strings.Contains(stderr, "-race requires cgo") || strings.Contains(stderr, "-race is not supported")
}
