package course

// A step's README: its tasks' sections, and the TODO(task N) markers of its
// starter. Pure functions of text, tested by
// readme_test.go.

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// A Task is a "### Task N: …" section of a step's README.
type Task struct {
	N        int
	Title    string   // what follows "Task N:" in its heading
	Line     int      // line of its heading, counted from 1
	Section  string   // the section's text, heading included (ReadmeTasks)
	Run      string   // the manifest's -run pattern (ManifestTasks)
	Patterns []string // [Run]
	Commands []string // its command, `go test -run '<Run>' .`, when it is safe to print
	Files    []string // the manifest's files: the starter files holding TODO(task N)
	Hints    string   // the manifest's hints file, relative to the step's folder
}

// A Todo is a "TODO(task N)" marker in a starter's source.
type Todo struct {
	File string
	Line int
	N    int
}

var (
	tasksHeading = regexp.MustCompile(`^##\s+Tasks\s*$`)
	taskHeading  = regexp.MustCompile(`^###\s+Task\s+(\d+)\b[:.\s—-]*(.*)$`)
	todoMarker   = regexp.MustCompile(`TODO\(\s*task\s*([^)]*)\)`)
)

// ReadmeTasks returns the tasks of the "## Tasks" section of a README, in the
// order they appear. Headings inside fenced code blocks are not headings.
func ReadmeTasks(readme string) ([]Task, error) {
	var (
		tasks   []Task
		inTasks bool
		seen    bool
		inFence bool
		fence   string
		current *Task
		lines   = strings.Split(strings.ReplaceAll(readme, "\r\n", "\n"), "\n")
		start   int
		finish  = func(end int) {
			if current != nil {
				current.Section = strings.TrimRight(strings.Join(lines[start:end], "\n"), "\n ") + "\n"
			}
			current = nil
		}
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
				finish(i)
				continue
			case level <= 2:
				inTasks = false
				finish(i)
				continue
			case level == 3 && inTasks:
				finish(i)
				if m := taskHeading.FindStringSubmatch(line); m != nil {
					n, _ := strconv.Atoi(m[1])
					tasks = append(tasks, Task{N: n, Title: strings.TrimSpace(m[2]), Line: i + 1})
					current, start = &tasks[len(tasks)-1], i
				}
				continue
			}
		}
	}
	finish(len(lines))
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

// ScanTODOs finds the TODO(task N) markers in a file's source. A marker whose
// task is not a number is reported with N = 0.
func ScanTODOs(file, src string) []Todo {
	var todos []Todo
	for i, line := range strings.Split(src, "\n") {
		for _, m := range todoMarker.FindAllStringSubmatch(line, -1) {
			n, err := strconv.Atoi(strings.TrimSpace(m[1]))
			if err != nil || n < 1 {
				n = 0
			}
			todos = append(todos, Todo{File: file, Line: i + 1, N: n})
		}
	}
	return todos
}
