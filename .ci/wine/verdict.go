// Command verdict reads the go test -json events of one test binary run under
// Wine (go tool test2json) and says PASS or FAIL for its package, telling a
// test's own failure from a known limit of Wine 8.0 that made it fail.
//
// The limit: Wine 8.0 does not implement FileDispositionInformationEx
// ("fixme:file:NtSetInformationFile Unsupported class (64)"), which Go's
// os.RemoveAll uses on Windows, and returns STATUS_NOT_IMPLEMENTED, not one of
// the statuses after which Go falls back to the old way of deleting. So the
// cleanup of every t.TempDir fails ("TempDir RemoveAll cleanup: unlinkat …:
// Invalid function."), after a test that passed. A failed test whose only
// output is such lines (and whose failed subtests are all of that kind)
// counts as passed, and is named; any other output of a failed test, or a
// failed run with no failed test (a crash, a timeout), is a failure.
//
//	go tool test2json -p NAME wine64 NAME.test.exe -test.v=test2json | go run .ci/wine/verdict.go NAME EXIT_CODE
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"sort"
	"strings"
)

var wineLimit = regexp.MustCompile(`^\s*testing\.go:\d+: TempDir RemoveAll cleanup: unlinkat .*: Invalid function\.$`)

// noGo is the message of this repository's tests that skip themselves when no
// go command, or no git, is on the PATH (none is, under Wine): such a test fails only if
// its t.TempDir's cleanup does, and the message is no failure of its own.
var noGo = regexp.MustCompile(`^\s*\w+_test\.go:\d+: (the go command is not|no go command|git is not) on the PATH$`)

type event struct {
	Action string
	Test   string
	Output string
}

type result struct {
	failed   bool
	own      []string // output lines other than framing and the Wine limit's
	tolerant int      // output lines of the Wine limit
}

func framing(line string) bool {
	for _, p := range []string{"=== RUN", "=== PAUSE", "=== CONT", "=== NAME", "--- FAIL", "--- PASS", "--- SKIP"} {
		if strings.HasPrefix(strings.TrimSpace(line), p) {
			return true
		}
	}
	return strings.TrimSpace(line) == ""
}

// crashed says whether the output shows a panic, a fatal error of the
// runtime or a timeout: the binary did not end as its tests did.
func crashed(out []string) bool {
	for _, l := range out {
		if strings.HasPrefix(l, "panic:") || strings.HasPrefix(l, "fatal error:") || strings.HasPrefix(l, "goroutine ") || strings.Contains(l, "test timed out") {
			return true
		}
	}
	return false
}

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: verdict NAME EXIT_CODE < events")
		os.Exit(2)
	}
	name, exit := os.Args[1], os.Args[2]
	tests := map[string]*result{}
	var all []string // every line of output, in order
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var e event
		if json.Unmarshal(sc.Bytes(), &e) != nil {
			all = append(all, sc.Text())
			continue
		}
		if e.Action == "output" {
			all = append(all, strings.TrimRight(e.Output, "\n"))
		}
		if e.Test == "" {
			continue
		}
		r := tests[e.Test]
		if r == nil {
			r = &result{}
			tests[e.Test] = r
		}
		switch e.Action {
		case "fail":
			r.failed = true
		case "output":
			line := strings.TrimRight(e.Output, "\n")
			switch {
			case framing(line):
			case wineLimit.MatchString(line):
				r.tolerant++
			case noGo.MatchString(line):
			default:
				r.own = append(r.own, line)
			}
		}
	}

	var names []string
	for n := range tests {
		names = append(names, n)
	}
	sort.Strings(names)
	// A failed test is a failure of its own if it said anything but the Wine
	// limit's line, or if it said nothing and no subtest of it failed.
	var real, tolerated []string
	for _, n := range names {
		r := tests[n]
		if !r.failed {
			continue
		}
		failedChild := false
		for _, m := range names {
			if strings.HasPrefix(m, n+"/") && tests[m].failed {
				failedChild = true
			}
		}
		switch {
		case len(r.own) > 0, r.tolerant == 0 && !failedChild:
			real = append(real, n)
		case r.tolerant > 0:
			tolerated = append(tolerated, n)
		}
	}

	// The verdict first, on the line the caller started; then the details.
	var details strings.Builder
	if len(tolerated) > 0 {
		fmt.Fprintf(&details, "    %d test(s) failed only at their t.TempDir cleanup (Wine 8.0 limit; counted as they ended: passed or skipped): %s\n",
			len(tolerated), strings.Join(tolerated, " "))
	}
	verdict, code := "PASS  "+name, 0
	switch {
	case len(real) > 0:
		for _, n := range real {
			fmt.Fprintf(&details, "    --- FAIL: %s\n", n)
			for _, l := range tests[n].own {
				fmt.Fprintf(&details, "        %s\n", l)
			}
		}
		verdict, code = "FAIL  "+name, 1
	case exit != "0" && (len(tolerated) == 0 || crashed(all)):
		// A crash or a timeout, or no test at all: the output's end.
		for _, l := range all[max(0, len(all)-40):] {
			fmt.Fprintf(&details, "        %s\n", l)
		}
		verdict, code = fmt.Sprintf("FAIL  %s (exit code %s)", name, exit), 1
	}
	fmt.Printf("%s\n%s", verdict, details.String())
	os.Exit(code)
}
