package course

// A step's README: its tasks' sections. Pure functions of text, tested by
// readme_test.go.

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// A Task is a "### Task N: …" section of a step's README.
type Task struct {
	N       int
	Title   string   // what follows "Task N:" in its heading
	Line    int      // line of its heading, counted from 1
	Section string   // the section's text, heading included (ReadmeTasks)
	Run     string   // the manifest's -run pattern (ManifestTasks)
	Command string   // its command, `go test -run '<Run>' .`; "" when it is not safe to print
	Files   []string // the manifest's files: the starter files holding TODO(task N)
	Hints   string   // the manifest's hints file, relative to the step's folder
}

var (
	tasksHeading = regexp.MustCompile(`^##\s+Tasks\s*$`)
	taskHeading  = regexp.MustCompile(`^###\s+Task\s+(\d+)\b[:.\s—-]*(.*)$`)
)

// ReadmeTasks returns the tasks of the "## Tasks" section of a README, in the
// order they appear. Headings inside fenced code blocks are not headings.
func ReadmeTasks(readme string) ([]Task, error) {
	lines := strings.Split(strings.ReplaceAll(readme, "\r\n", "\n"), "\n")
	fence := fenced(lines)
	var tasks []Task
	inTasks, seen := false, false
	end := func(i int) { // a heading at line i ends the last task's section, if still open
		if n := len(tasks); n > 0 && tasks[n-1].Section == "" {
			tasks[n-1].Section = strings.TrimRight(strings.Join(lines[tasks[n-1].Line-1:i], "\n"), "\n ") + "\n"
		}
	}
	for i, line := range lines {
		level := len(line) - len(strings.TrimLeft(line, "#"))
		switch {
		case fence[i] || level == 0 || level > 3:
		case level <= 2:
			end(i)
			inTasks = tasksHeading.MatchString(line)
			seen = seen || inTasks
		case inTasks:
			end(i)
			if m := taskHeading.FindStringSubmatch(line); m != nil {
				n, _ := strconv.Atoi(m[1])
				tasks = append(tasks, Task{N: n, Title: strings.TrimSpace(m[2]), Line: i + 1})
			}
		}
	}
	end(len(lines))
	if !seen {
		return nil, fmt.Errorf("README.md has no \"## Tasks\" section")
	}
	return tasks, nil
}

// fenced reports, for each line of a Markdown text, whether it is in a
// fenced code block (``` or ~~~), its opening fence included.
func fenced(lines []string) []bool {
	in := make([]bool, len(lines))
	fence := ""
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if fence == "" && (strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~")) {
			fence = t[:3]
		} else if fence != "" && strings.HasPrefix(t, fence) {
			fence = ""
		}
		in[i] = fence != ""
	}
	return in
}
