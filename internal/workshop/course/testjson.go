package course

// Reading `go test -json` (test2json events): what each package's run did,
// test by test, and where a crash happened. Pure functions, tested by
// testjson_test.go.

import (
	"encoding/json"
	"fmt"
	"path"
	"slices"
	"strings"
)

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

// crash finds the first line of a panic, a fatal runtime error or a test
// time-out in the run's output, with the test it came from.
func (r TestRun) crash() (line, test string, ok bool) {
	for _, name := range r.testsWithOutput() {
		for _, l := range r.ByTest[name] {
			if strings.HasPrefix(l, "panic: ") || strings.HasPrefix(l, "fatal error: ") {
				return l, name, true
			}
		}
	}
	return "", "", false
}

func (r TestRun) testsWithOutput() []string {
	names := append([]string{""}, r.Ran...)
	return slices.Compact(names)
}

// crashExcerpt quotes what matters of a crash, up to max lines: the crash
// line and the lines that follow it up to a blank line (for a time-out, the
// tests still running), then the stack of each goroutine that passes through
// the package under test — where a stub panicked or blocked — rather than the
// testing package's own.
func crashExcerpt(r TestRun, crashLine string, max int) string {
	start := slices.Index(r.Output, crashLine)
	if start < 0 {
		return tail(r.Output, max)
	}
	var blocks [][]string
	var block []string
	for _, l := range r.Output[start:] {
		if strings.TrimSpace(l) == "" {
			blocks, block = append(blocks, block), nil
			continue
		}
		block = append(block, l)
	}
	blocks = append(blocks, block)
	// The goroutines whose stacks pass through the step's own code (not its
	// tests) come first: in a synctest deadlock, where the learner's
	// goroutine is stuck; then those with any frame of the package.
	excerpt := blocks[0]
	var own, pkg [][]string
	for _, b := range blocks[1:] {
		switch {
		case r.Package == "":
		case slices.ContainsFunc(b, func(l string) bool { return stepCode(l, path.Base(r.Package)) }):
			own = append(own, b)
		case slices.ContainsFunc(b, func(l string) bool { return strings.HasPrefix(l, r.Package+".") }):
			pkg = append(pkg, b)
		}
	}
	for _, b := range append(own, pkg...) {
		excerpt = append(append(excerpt, ""), b...)
	}
	if len(excerpt) > max {
		excerpt = append(excerpt[:max], fmt.Sprintf("[… %d more lines]", len(excerpt)-max))
	}
	return strings.Join(excerpt, "\n")
}

// stepCode reports whether l, a line of a stack, is a frame in a file of the
// step's folder dir that is not a test ("\t/…/03-crash/work.go:17 +0x3f").
func stepCode(l, dir string) bool {
	file, _, ok := strings.Cut(strings.TrimSpace(strings.ReplaceAll(l, `\`, "/")), ".go:")
	return ok && strings.Contains(file, "/"+dir+"/") && !strings.HasSuffix(file, "_test")
}

func tail(lines []string, n int) string {
	if len(lines) > n {
		lines = append([]string{fmt.Sprintf("[… %d lines before]", len(lines)-n)}, lines[len(lines)-n:]...)
	}
	return strings.Join(lines, "\n")
}

func indent(s string) string {
	return "\t" + strings.ReplaceAll(s, "\n", "\n\t")
}
