package solutions

// The static half of the integrity check: a step's README tasks, the run
// commands they name, and the TODO(task N) markers of its starter. Pure
// functions of text, tested by tasks_check_test.go.

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// A task is a "### Task N: …" section of a step's README.
type task struct {
	N        int
	Line     int      // line of its heading, counted from 1
	Patterns []string // the patterns of the `go test -run '…'` commands in its section
}

// A todo is a "TODO(task N)" marker in a starter's source.
type todo struct {
	File string
	Line int
	N    int
}

var (
	tasksHeading = regexp.MustCompile(`^##\s+Tasks\s*$`)
	taskHeading  = regexp.MustCompile(`^###\s+Task\s+(\d+)\b`)
	runCommand   = regexp.MustCompile(`go test\b[^\n]*?\s-run[= ]'([^']*)'`)
	todoMarker   = regexp.MustCompile(`TODO\(\s*task\s*([^)]*)\)`)
)

// readmeTasks returns the tasks of the "## Tasks" section of a README, in the
// order they appear. Headings inside fenced code blocks are not headings.
func readmeTasks(readme string) ([]task, error) {
	var (
		tasks    []task
		inTasks  bool
		seen     bool
		inFence  bool
		fence    string
		current  *task
		lines    = strings.Split(strings.ReplaceAll(readme, "\r\n", "\n"), "\n")
		finish   = func() { current = nil }
		headingN = func(s string) int { return len(s) - len(strings.TrimLeft(s, "#")) }
	)
	for i, line := range lines {
		trimmed := strings.TrimSpace(line)
		if f := fenceOf(trimmed); f != "" && (!inFence || strings.HasPrefix(trimmed, fence)) {
			if inFence {
				inFence = false
			} else {
				inFence, fence = true, f
			}
		}
		if !inFence && strings.HasPrefix(line, "#") {
			level := headingN(line)
			switch {
			case level <= 2 && tasksHeading.MatchString(line):
				inTasks, seen = true, true
				finish()
				continue
			case level <= 2:
				inTasks = false
				finish()
				continue
			case level == 3 && inTasks:
				finish()
				if m := taskHeading.FindStringSubmatch(line); m != nil {
					n, _ := strconv.Atoi(m[1])
					tasks = append(tasks, task{N: n, Line: i + 1})
					current = &tasks[len(tasks)-1]
				}
				continue
			}
		}
		if current != nil {
			for _, m := range runCommand.FindAllStringSubmatch(line, -1) {
				current.Patterns = append(current.Patterns, m[1])
			}
		}
	}
	if !seen {
		return nil, fmt.Errorf("README.md has no \"## Tasks\" section")
	}
	return tasks, nil
}

// fenceOf returns the fence (``` or ~~~) that opens or closes a code block on
// this line, or "".
func fenceOf(line string) string {
	for _, f := range []string{"```", "~~~"} {
		if strings.HasPrefix(line, f) {
			return f
		}
	}
	return ""
}

// taskProblems checks that tasks are numbered 1..n in order and that each names
// at least one `go test -run '…'` command.
func taskProblems(tasks []task) []string {
	var problems []string
	if len(tasks) == 0 {
		problems = append(problems, `README.md's "## Tasks" section has no "### Task N: …" heading`)
	}
	for i, tk := range tasks {
		if tk.N != i+1 {
			problems = append(problems, fmt.Sprintf("README.md:%d: task %d comes where task %d should: number tasks 1, 2, 3… in order, without gaps", tk.Line, tk.N, i+1))
		}
		if len(tk.Patterns) == 0 {
			problems = append(problems, fmt.Sprintf("README.md:%d: task %d names no `go test -run '…'` command (pattern in single quotes) to check it", tk.Line, tk.N))
		}
	}
	return problems
}

// scanTODOs finds the TODO(task N) markers in a file's source. A marker whose
// task is not a number is reported with N = 0.
func scanTODOs(file, src string) []todo {
	var todos []todo
	for i, line := range strings.Split(src, "\n") {
		for _, m := range todoMarker.FindAllStringSubmatch(line, -1) {
			n, err := strconv.Atoi(strings.TrimSpace(m[1]))
			if err != nil || n < 1 {
				n = 0
			}
			todos = append(todos, todo{File: file, Line: i + 1, N: n})
		}
	}
	return todos
}

// todoProblems reports every TODO whose task is not in the README.
func todoProblems(todos []todo, tasks []task) []string {
	have := map[int]bool{}
	for _, tk := range tasks {
		have[tk.N] = true
	}
	var problems []string
	for _, td := range todos {
		switch {
		case td.N == 0:
			problems = append(problems, fmt.Sprintf("%s:%d: a TODO(task …) marker without a task number: write TODO(task N)", td.File, td.Line))
		case !have[td.N]:
			problems = append(problems, fmt.Sprintf("%s:%d: TODO(task %d) has no \"### Task %d\" in README.md's \"## Tasks\"", td.File, td.Line, td.N, td.N))
		}
	}
	return problems
}

// splitRunPattern splits a -run pattern as package testing does (see
// testing/match.go): into alternatives at '|', each into one regular
// expression per level of test name at '/', ignoring both inside [] and ().
// Each element is rewritten as testing rewrites it: spaces become '_'.
func splitRunPattern(p string) [][]string {
	var alts [][]string
	var elems []string
	brackets, parens, start := 0, 0, 0
	for i := 0; i < len(p); i++ {
		switch p[i] {
		case '[':
			brackets++
		case ']':
			brackets = max(brackets-1, 0)
		case '(':
			if brackets == 0 {
				parens++
			}
		case ')':
			if brackets == 0 {
				parens--
			}
		case '\\':
			i++
		case '/', '|':
			if brackets == 0 && parens == 0 {
				elems = append(elems, rewrite(p[start:i]))
				start = i + 1
				if p[i] == '|' {
					alts, elems = append(alts, elems), nil
				}
			}
		}
	}
	elems = append(elems, rewrite(p[min(start, len(p)):]))
	return append(alts, elems)
}

func rewrite(s string) string {
	return strings.Map(func(r rune) rune {
		if r == ' ' || r == '\t' {
			return '_'
		}
		return r
	}, s)
}

// selectedTests returns the names, among the full test names that ran (such as
// "TestStock/counts_abandoned_requests"), that `go test -run pattern` selects
// as targets: every level of the pattern matches, not just a parent on the
// way to its subtests.
func selectedTests(pattern string, names []string) ([]string, error) {
	alts := splitRunPattern(pattern)
	var res [][]*regexp.Regexp
	for _, elems := range alts {
		var re []*regexp.Regexp
		for _, e := range elems {
			r, err := regexp.Compile(e)
			if err != nil {
				return nil, fmt.Errorf("-run '%s' is not a valid pattern: %v", pattern, err)
			}
			re = append(re, r)
		}
		res = append(res, re)
	}
	var selected []string
	for _, name := range names {
		levels := strings.Split(name, "/")
		for _, re := range res {
			if len(levels) >= len(re) && matchesLevels(re, levels) {
				selected = append(selected, name)
				break
			}
		}
	}
	return selected, nil
}

func matchesLevels(re []*regexp.Regexp, levels []string) bool {
	for i, r := range re {
		if !r.MatchString(levels[i]) {
			return false
		}
	}
	return true
}

// patternProblems reports every run pattern of the README's tasks that selects
// none of the tests that ran (names as `go test -json` reports them).
func patternProblems(tasks []task, ran []string) []string {
	var problems []string
	for _, tk := range tasks {
		for _, p := range tk.Patterns {
			selected, err := selectedTests(p, ran)
			switch {
			case err != nil:
				problems = append(problems, fmt.Sprintf("README.md:%d: task %d: %v", tk.Line, tk.N, err))
			case len(selected) == 0:
				problems = append(problems, fmt.Sprintf("README.md:%d: task %d: go test -run '%s' selects no test (top-level tests: %s)",
					tk.Line, tk.N, p, strings.Join(topLevel(ran), ", ")))
			}
		}
	}
	return problems
}

func topLevel(names []string) []string {
	var top []string
	for _, n := range names {
		if !strings.Contains(n, "/") {
			top = append(top, n)
		}
	}
	return top
}
