package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
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
	cacheDir string // the results of the steps' tests and vet
	stateDir string // the hints shown, and what reset kept
	g        course.Go
	wd       string   // the folder the runner was started in
	windows  bool     // print commands for Windows' shells
	term     terminal // where watch draws its screen; none: plain output
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
	// Everything the runner keeps belongs to this clone, and its worktrees
	// share it (course.StateDir): the hints shown, what reset kept, and the
	// results of the steps' tests, keyed by their files' contents. A fresh
	// clone in the same folder starts again from the gentlest hint.
	stateDir := course.StateDir(context.Background(), root)
	a, err := newAppAt(root, course.ResultsCache(context.Background(), root).Dir, os.Stdin, stdout, stderr)
	if err != nil {
		return nil, err
	}
	a.wd = wd
	a.term = osTerminal()
	a.stateDir = stateDir
	return a, nil
}

func newAppAt(root, cacheDir string, stdin io.Reader, stdout, stderr io.Writer) (*app, error) {
	steps, err := course.Steps(root)
	if err != nil {
		return nil, err
	}
	if len(steps) == 0 {
		return nil, fmt.Errorf("no step folder (%s) in %s: run go tool workshop inside the workshop's repository", course.StepGlob, root)
	}
	return &app{root: root, wd: root, steps: steps, stdin: stdin, stdout: stdout, stderr: stderr, cacheDir: cacheDir, stateDir: cacheDir, g: course.Go{Dir: root}, windows: runtime.GOOS == "windows"}, nil
}

func (a *app) cache() course.Cache { return course.Cache{Dir: a.cacheDir} }

func (a *app) progress(msg string) { fmt.Fprintf(a.stderr, "… %s\n", msg) }

// usageError reports a usage error and returns its exit code.
func (a *app) usageError(format string, args ...any) int {
	fmt.Fprintf(a.stderr, "workshop: "+format+"\n", args...)
	return exitUsage
}

// working is the index of the step the learner is working in: the step
// folder the runner was started in if that step is not finished; else, of
// the steps not finished, the one whose files (hints/ aside) they changed
// last compared to the starter; else the first step not finished; else the
// last step.
func (a *app) working(ctx context.Context, sts []*course.StepStatus) int {
	if step, ok := a.inStep(); ok {
		for i, s := range a.steps {
			if s.Name == step.Name && !sts[i].Finished() {
				return i
			}
		}
	}
	if i := course.WorkingStep(ctx, a.root, a.steps, func(i int) bool { return !sts[i].Finished() }); i >= 0 {
		return i
	}
	for i, st := range sts {
		if !st.Finished() {
			return i
		}
	}
	return len(sts) - 1
}

// stepArg finds the step an argument names: a number or a folder's name, or
// a path from the folder the runner was started in (".", "../05-menu-v3");
// for "", the step folder the runner was started in, else the step the
// learner is working in (working). A step folder that resolves outside the
// module is refused.
func (a *app) stepArg(ctx context.Context, arg string) (course.Step, error) {
	step, err := a.findStep(ctx, arg)
	if err == nil {
		_, err = step.Resolve(a.root)
	}
	return step, err
}

func (a *app) findStep(ctx context.Context, arg string) (course.Step, error) {
	if arg == "" {
		if step, ok := a.inStep(); ok {
			return step, nil
		}
		sts, err := course.Statuses(ctx, a.g, a.root, a.steps, a.cache(), a.progress)
		if err != nil {
			return course.Step{}, err
		}
		return a.steps[a.working(ctx, sts)], nil
	}
	if arg != "." && arg != ".." && !strings.ContainsAny(arg, `/\`) {
		return course.FindStep(a.steps, arg)
	}
	// A path, as Windows writes it too (`.\05-menu-v3\`): only one that
	// resolves to a step folder of this module names it, not one that
	// merely ends in a step's name (solutions/05-menu-v3).
	dir := filepath.FromSlash(strings.ReplaceAll(arg, `\`, "/"))
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(a.wd, dir)
	}
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		for _, s := range a.steps {
			if r, err := filepath.EvalSymlinks(s.Dir); err == nil && r == real {
				return s, nil
			}
		}
	}
	return course.Step{}, course.NoStep(a.steps, arg)
}

// inStep returns the step whose folder the runner was started in (or below).
func (a *app) inStep() (course.Step, bool) {
	for _, s := range a.steps {
		rel, err := filepath.Rel(s.Dir, a.wd)
		if err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel) {
			return s, true
		}
	}
	return course.Step{}, false
}

// command is cmd, a README's command (go test …, run in a step's folder),
// as this machine's shells take it from the folder the runner was started
// in: "cd 05-menu-v3 && go test -run 'TestX' .", or just cmd when already
// there.
//
// On Windows it is "go -C 05-menu-v3 test -run "TestX" .": the pattern in
// double quotes, because cmd.exe would pass single quotes on as part of the
// pattern and go test would then match no test and say ok; and go's own -C
// instead of cd and &&, which Windows PowerShell 5.1 does not take. The
// folder is quoted when it is not plain; course.yaml's check keeps out of
// the pattern what either quotes would not hold.
func (a *app) command(step course.Step, cmd string) string {
	dir := a.dirOf(step)
	if dir != "" && !plainDir.MatchString(strings.ReplaceAll(dir, string(filepath.Separator), "/")) {
		if a.windows {
			dir = `"` + dir + `"`
		} else {
			dir = "'" + strings.ReplaceAll(dir, "'", `'\''`) + "'"
		}
	}
	if !a.windows {
		if dir == "" {
			return cmd
		}
		return "cd " + dir + " && " + cmd
	}
	cmd = strings.ReplaceAll(cmd, "'", `"`)
	if rest, ok := strings.CutPrefix(cmd, "go "); ok && dir != "" {
		return "go -C " + dir + " " + rest
	}
	return cmd
}

var plainDir = regexp.MustCompile(`^[\w./:-]+$`)

// dirOf is step's folder, relative to the folder the runner was started in
// when it can be; "" when that is the step's folder.
func (a *app) dirOf(step course.Step) string {
	rel, err := filepath.Rel(a.wd, step.Dir)
	switch {
	case err != nil:
		return step.Dir
	case rel == ".":
		return ""
	}
	return rel
}

var errUsage = errors.New("usage")

// stepArgs reads a command's arguments: the flags bools, wherever they come,
// and at most most others, the first naming the step (stepArg). On a usage
// error it reports it and returns ok false.
func (a *app) stepArgs(ctx context.Context, args, bools []string, most int, usage string) (flags map[string]string, pos []string, step course.Step, ok bool) {
	flags, pos, err := splitFlags(args, bools, nil)
	if err != nil || len(pos) > most {
		a.usageError("usage: go tool workshop %s", usage)
		return nil, nil, step, false
	}
	if step, err = a.stepArg(ctx, append(pos, "")[0]); err != nil {
		a.usageError("%v", err)
		return nil, nil, step, false
	}
	return flags, pos, step, true
}

// taskArg is the task arg names among a step's tasks; nil after a usage
// error.
func (a *app) taskArg(step course.Step, tasks []course.Task, arg string) *course.Task {
	n, _ := strconv.Atoi(arg)
	if tk := taskN(tasks, n); tk != nil {
		return tk
	}
	a.usageError("%s has no task %q: its tasks are 1 to %d", step.Name, arg, len(tasks))
	return nil
}

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
		case slices.Contains(bools, name) && !hasVal:
			flags[name] = "true"
		case slices.Contains(values, name):
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

var stuckLine = regexp.MustCompile(`(?m)^Stuck\?.*\n?`)

// taskText is a task's README section as a terminal should show it: no
// "Stuck?" line (the runner says how to ask), no trailing blanks. (It holds
// no hints: the integrity check refuses a <details> block.)
func taskText(tk course.Task) string {
	return strings.TrimSpace(stuckLine.ReplaceAllString(tk.Section, ""))
}
