package course

// Where a crash happened in a run of `go test -json` (read by
// internal/gotest), and what of it to quote. Pure functions, tested by
// testjson_test.go.

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/icecreamcorp/go-cancellation-workshop/internal/gotest"
)

// crashExcerpt quotes what matters of a crash, up to max lines: the crash
// line and the lines that follow it up to a blank line (for a time-out, the
// tests still running), then the stack of each goroutine that passes through
// the package under test — where a stub panicked or blocked — rather than the
// testing package's own.
func crashExcerpt(r gotest.TestRun, crashLine string, max int) string {
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
