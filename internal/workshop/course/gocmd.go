package course

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"time"
)

// Go runs the go command.
type Go struct {
	Dir string // where it runs: the module's root
	// Log, if set, hears of every command and how long it took.
	Log func(cmd string, took time.Duration)
}

// run runs `go args…`, handing its stdout to read as it comes (a test binary
// may hold the pipe open after go is stopped: WaitDelay ends that).
func (g Go) run(ctx context.Context, read func(io.Reader), args ...string) (stderr string, err error) {
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = g.Dir
	cmd.WaitDelay = 10 * time.Second
	var errOut bytes.Buffer
	cmd.Stderr = &errOut
	out, err := cmd.StdoutPipe()
	if err != nil {
		return "", err
	}
	start := time.Now()
	if err = cmd.Start(); err == nil {
		read(out)
		_, _ = io.Copy(io.Discard, out)
		err = cmd.Wait()
	}
	if ctx.Err() != nil {
		err = fmt.Errorf("go %s: stopped: %w", strings.Join(args, " "), context.Cause(ctx))
	}
	if g.Log != nil {
		g.Log("go "+strings.Join(args, " "), time.Since(start))
	}
	return errOut.String(), err
}

// Run runs `go args…` and returns what it wrote. err is the go command's
// exit status: a failing test makes it 1, so callers read the output.
func (g Go) Run(ctx context.Context, args ...string) (stdout, stderr string, err error) {
	var out bytes.Buffer
	stderr, err = g.run(ctx, func(r io.Reader) { _, _ = io.Copy(&out, r) }, args...)
	return out.String(), stderr, err
}

// TestJSON runs `go test -json args…` and reads its events, one TestRun per
// package; stderr is go's own complaints, if any.
func (g Go) TestJSON(ctx context.Context, args ...string) ([]*TestRun, string) {
	return g.testJSONEach(ctx, nil, args...)
}

// testJSONEach is TestJSON, calling done with each package's run as soon as
// its final event arrives (go test prints the packages in the order named).
func (g Go) testJSONEach(ctx context.Context, done func(*TestRun), args ...string) (runs []*TestRun, stderr string) {
	stderr, _ = g.run(ctx, func(r io.Reader) { runs = readTestJSON(r, done) }, append([]string{"test", "-json"}, args...)...)
	return runs, stderr
}

// readTestJSON reads a `go test -json` stream (see eventReader).
func readTestJSON(r io.Reader, done func(*TestRun)) []*TestRun {
	p := eventReader{byPkg: map[string]*TestRun{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 16*1024*1024)
	for sc.Scan() {
		if run := p.line(sc.Bytes()); run != nil && done != nil {
			done(run)
		}
	}
	return p.runs
}
