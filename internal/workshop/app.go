package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"

	"github.com/icecreamcorp/go-cancellation-workshop/internal/workshop/course"
)

// app is what every command that works on the course needs.
type app struct {
	root     string
	steps    []course.Step
	stdin    io.Reader
	stdout   io.Writer
	stderr   io.Writer
	cacheDir string // "" keeps nothing between runs
	g        course.Go
}

func newApp(stdout, stderr io.Writer) (*app, error) {
	wd, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	root, err := course.ModuleRoot(wd)
	if err != nil {
		return nil, err
	}
	cacheDir, err := course.DefaultCacheDir(root)
	if err != nil {
		fmt.Fprintf(stderr, "workshop: no cache folder (%v): results and hints shown are not remembered\n", err)
		cacheDir = ""
	}
	return newAppAt(root, cacheDir, os.Stdin, stdout, stderr)
}

func newAppAt(root, cacheDir string, stdin io.Reader, stdout, stderr io.Writer) (*app, error) {
	steps, err := course.Steps(root)
	if err != nil {
		return nil, err
	}
	if len(steps) == 0 {
		return nil, fmt.Errorf("no step folder (%s) in %s: run go tool workshop inside the workshop's repository", course.StepGlob, root)
	}
	return &app{root: root, steps: steps, stdin: stdin, stdout: stdout, stderr: stderr, cacheDir: cacheDir, g: course.Go{Dir: root}}, nil
}

func (a *app) cache() course.Cache { return course.Cache{Dir: a.cacheDir} }

func (a *app) progress(msg string) { fmt.Fprintf(a.stderr, "… %s\n", msg) }

// usageError reports a usage error and returns its exit code.
func (a *app) usageError(format string, args ...any) int {
	fmt.Fprintf(a.stderr, "workshop: "+format+"\n", args...)
	return exitUsage
}

func (a *app) statuses(ctx context.Context) ([]*course.StepStatus, error) {
	return course.Statuses(ctx, a.g, a.root, a.steps, a.cache(), a.progress)
}

// current returns the first step not finished (or the last step when all
// are), and its status.
func (a *app) current(ctx context.Context) (course.Step, *course.StepStatus, error) {
	sts, err := a.statuses(ctx)
	if err != nil {
		return course.Step{}, nil, err
	}
	for i, st := range sts {
		if !st.Finished() {
			return a.steps[i], st, nil
		}
	}
	return a.steps[len(a.steps)-1], sts[len(sts)-1], nil
}

// stepArg finds the step an argument names, or the current step for "".
func (a *app) stepArg(ctx context.Context, arg string) (course.Step, error) {
	if arg == "" {
		step, _, err := a.current(ctx)
		return step, err
	}
	return course.FindStep(a.steps, arg)
}

var errUsage = errors.New("usage")

// splitFlags separates flags (-y, -all, -from REF) from positional arguments,
// wherever they come: `hint 05 1 -all` and `hint -all 05 1` alike.
func splitFlags(args []string, bools []string, values []string) (flags map[string]string, pos []string, err error) {
	flags = map[string]string{}
	for i := 0; i < len(args); i++ {
		arg := args[i]
		if !strings.HasPrefix(arg, "-") || arg == "-" {
			pos = append(pos, arg)
			continue
		}
		name, val, hasVal := strings.Cut(strings.TrimLeft(arg, "-"), "=")
		switch {
		case contains(bools, name) && !hasVal:
			flags[name] = "true"
		case contains(values, name):
			if !hasVal {
				if i+1 >= len(args) {
					return nil, nil, fmt.Errorf("%w: -%s needs a value", errUsage, name)
				}
				i++
				val = args[i]
			}
			flags[name] = val
		default:
			return nil, nil, fmt.Errorf("%w: unknown flag %s", errUsage, arg)
		}
	}
	return flags, pos, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

var (
	detailsBlock = regexp.MustCompile(`(?s)<details>.*?</details>\n?`)
	stuckLine    = regexp.MustCompile(`(?m)^Stuck\?.*\n?`)
)

// taskText is a task's README section as a terminal should show it: no
// hints, no "Stuck?" line (the runner says how to ask), no trailing blanks.
func taskText(tk course.Task) string {
	s := detailsBlock.ReplaceAllString(tk.Section, "")
	s = stuckLine.ReplaceAllString(s, "")
	return strings.TrimSpace(s)
}
