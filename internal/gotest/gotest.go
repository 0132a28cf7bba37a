// Package gotest runs the go command and reads what `go test -json` says,
// package by package: what the runner (internal/workshop) and the lab
// (internal/load) both need, owned by neither.
package gotest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
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
// package; stderr is go's own complaints, if any. done, if not nil, hears of
// each package's run as soon as its final event arrives (go test prints the
// packages in the order named).
func (g Go) TestJSON(ctx context.Context, done func(*TestRun), args ...string) (runs []*TestRun, stderr string) {
	stderr, _ = g.run(ctx, func(r io.Reader) { runs = Read(r, done) }, append([]string{"test", "-json"}, args...)...)
	return runs, stderr
}

// Read reads a `go test -json` stream (see eventReader).
func Read(r io.Reader, done func(*TestRun)) []*TestRun {
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

// event is one line of `go test -json` (see `go doc cmd/test2json`).
type event struct {
	Action      string
	Package     string
	ImportPath  string // build events carry ImportPath, not Package
	Test        string
	Output      string
	Elapsed     float64
	FailedBuild string
}

// TestRun is what one `go test -json` run said of one package.
type TestRun struct {
	Package     string            // import path of the package under test
	Result      string            // the package's final action: "pass", "fail", "skip", or "" if none came
	Elapsed     float64           // seconds, of the package's final event: the test binary's run time
	Ran         []string          // every test that started, subtests included, in order
	Failed      []string          // every test that failed, subtests included, innermost first
	Outcome     map[string]string // each test's final action: "pass", "fail" or "skip"
	BuildFailed bool
	BuildOutput string
	Output      []string            // every output line, in order
	ByTest      map[string][]string // output lines, per test ("" for the package's own)
}

func newRun(pkg string) *TestRun {
	return &TestRun{Package: pkg, Outcome: map[string]string{}, ByTest: map[string][]string{}}
}

// An eventReader reads a `go test -json` stream of any number of packages
// line by line: one TestRun per package, in the order they first appear.
// Lines that are not JSON (go's own errors) go to a TestRun whose Package is
// "".
type eventReader struct {
	runs  []*TestRun
	byPkg map[string]*TestRun
}

// line reads one line of the stream, and returns its package's run when the
// line is the package's final event.
func (p *eventReader) line(b []byte) *TestRun {
	var e event
	if err := json.Unmarshal(b, &e); err != nil || e.Action == "" {
		e = event{Action: "output", Output: string(b) + "\n"}
	}
	pkg := e.Package
	if pkg == "" && e.ImportPath != "" {
		// "example.com/m/step [example.com/m/step.test]" is the step's build.
		pkg, _, _ = strings.Cut(e.ImportPath, " ")
	}
	run, ok := p.byPkg[pkg]
	if !ok {
		run = newRun(pkg)
		p.byPkg[pkg] = run
		p.runs = append(p.runs, run)
	}
	switch e.Action {
	case "build-output":
		run.BuildOutput += e.Output
	case "build-fail":
		run.BuildFailed = true
	case "run":
		run.Ran = append(run.Ran, e.Test)
	case "output":
		line := strings.TrimSuffix(e.Output, "\n")
		run.Output = append(run.Output, line)
		run.ByTest[e.Test] = append(run.ByTest[e.Test], line)
	case "pass", "fail", "skip":
		if e.Test != "" {
			run.Outcome[e.Test] = e.Action
			if e.Action == "fail" {
				run.Failed = append(run.Failed, e.Test)
			}
			return nil
		}
		run.Result, run.Elapsed = e.Action, e.Elapsed
		run.BuildFailed = run.BuildFailed || e.FailedBuild != ""
		return run
	}
	return nil
}

// Crash finds the first line of a panic, a fatal runtime error or a test
// time-out in the run's output, with the test it came from.
func (r TestRun) Crash() (line, test string, ok bool) {
	for _, name := range r.TestsWithOutput() {
		for _, l := range r.ByTest[name] {
			if strings.HasPrefix(l, "panic: ") || strings.HasPrefix(l, "fatal error: ") {
				return l, name, true
			}
		}
	}
	return "", "", false
}

// TestsWithOutput lists "" (the package's own output) and every test that
// ran, in order.
func (r TestRun) TestsWithOutput() []string {
	names := append([]string{""}, r.Ran...)
	return slices.Compact(names)
}

// ModuleRoot finds the folder of the go.mod that holds dir.
func ModuleRoot(dir string) (string, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for {
		if info, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil && !info.IsDir() {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod in this folder or above it: run go tool workshop inside the workshop's repository")
		}
		dir = parent
	}
}

// ModulePath reads the module path from root's go.mod.
func ModulePath(root string) (string, error) {
	data, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		return "", err
	}
	for line := range strings.Lines(string(data)) {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "module"); ok {
			return strings.Trim(strings.TrimSpace(rest), `"`), nil
		}
	}
	return "", fmt.Errorf("%s has no module line", filepath.Join(root, "go.mod"))
}

// Pick returns the run of the package pkg, or an empty one.
func Pick(runs []*TestRun, pkg string) *TestRun {
	for _, r := range runs {
		if r.Package == pkg {
			return r
		}
	}
	return newRun(pkg)
}

// TopLevel lists the top-level tests (and examples) of a run, in order.
func (r *TestRun) TopLevel() []string {
	var top []string
	for _, name := range r.Ran {
		if !strings.Contains(name, "/") && !slices.Contains(top, name) {
			top = append(top, name)
		}
	}
	return top
}

// Selects returns the top-level tests of the run that `go test -run pattern`
// runs: -run is a regular expression matched against each top-level test's
// name (`go help testflag`). A pattern that is no regular expression, or
// that has a slash (which would select subtests), selects none.
func (r *TestRun) Selects(pattern string) []string {
	re, err := regexp.Compile(pattern)
	var sel []string
	for _, name := range r.TopLevel() {
		if err == nil && re.MatchString(name) {
			sel = append(sel, name)
		}
	}
	return sel
}
