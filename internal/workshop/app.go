package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"github.com/icecreamcorp/go-cancellation-workshop/internal/gotest"
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
	g        gotest.Go
	wd       string   // the folder the runner was started in
	windows  bool     // print commands for Windows' shells
	term     terminal // where watch draws its screen; none: plain output
}

// newApp is the app of the module the runner was started in, keeping its
// state where README.md's "Where the runner keeps things" says.
func newApp(stdout, stderr io.Writer) (*app, error) {
	wd, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	root, err := gotest.ModuleRoot(wd)
	if err != nil {
		return nil, err
	}
	a, err := newAppAt(root, course.ResultsCache(context.Background(), root).Dir, os.Stdin, stdout, stderr)
	if err != nil {
		return nil, err
	}
	a.wd, a.term, a.stateDir = wd, osTerminal(), course.StateDir(context.Background(), root)
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
	return &app{root: root, wd: root, steps: steps, stdin: stdin, stdout: stdout, stderr: stderr, cacheDir: cacheDir, stateDir: cacheDir, g: gotest.Go{Dir: root}, windows: runtime.GOOS == "windows"}, nil
}

func (a *app) cache() course.Cache { return course.Cache{Dir: a.cacheDir} }

func (a *app) progress(msg string) { fmt.Fprintf(a.stderr, "… %s\n", msg) }

// usageError reports a usage error and returns its exit code.
func (a *app) usageError(format string, args ...any) int {
	fmt.Fprintf(a.stderr, "workshop: "+format+"\n", args...)
	return exitUsage
}

// failed reports an error that ends a command, and returns its exit code.
func (a *app) failed(format string, args ...any) int {
	fmt.Fprintf(a.stderr, "workshop: "+format+"\n", args...)
	return exitRed
}

// working is the index of the step the learner is working in, as README.md's
// "Which step" says; the last step once every step is done.
func (a *app) working(ctx context.Context, sts []*course.StepStatus) int {
	if i := a.inStep(); i >= 0 && !sts[i].Finished() {
		return i
	}
	if i := course.WorkingStep(ctx, a.root, a.steps, func(i int) bool { return !sts[i].Finished() }); i >= 0 {
		return i
	}
	if i := slices.IndexFunc(sts, func(st *course.StepStatus) bool { return !st.Finished() }); i >= 0 {
		return i
	}
	return len(sts) - 1
}

// stepArg finds the step an argument names (README.md's "Which step"): a
// number or a folder's name, or a path from the folder the runner was
// started in; for "", the step folder the runner was started in, else the
// step the learner is working in. A step folder that resolves outside the
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
		if i := a.inStep(); i >= 0 {
			return a.steps[i], nil
		}
		sts, err := course.Statuses(ctx, a.g, a.root, a.steps, a.cache(), a.progress, nil)
		if err != nil {
			return course.Step{}, err
		}
		return a.steps[a.working(ctx, sts)], nil
	}
	if arg != "." && arg != ".." && !strings.ContainsAny(arg, `/\`) {
		return course.FindStep(a.steps, arg)
	}
	// A path, as Windows writes it too (`.\05-menu-v3\`), names the step
	// folder it resolves to.
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

// inStep is the index of the step whose folder the runner was started in
// (or below), or -1.
func (a *app) inStep() int {
	return slices.IndexFunc(a.steps, func(s course.Step) bool {
		rel, err := filepath.Rel(s.Dir, a.wd)
		return err == nil && filepath.IsLocal(rel)
	})
}

// command is cmd, a go command as a README shows it (run in a step's
// folder), as this machine's shells take it from the folder the runner was
// started in: "cd 05-menu-v3 && cmd", or cmd when already there; on Windows
// "go -C 05-menu-v3 …" with the pattern in double quotes, the form the root
// README gives (Windows PowerShell 5.1 has no &&). The folder is quoted when
// it is not plain; course.yaml's check keeps out of the pattern what either
// quotes would not hold.
func (a *app) command(step course.Step, cmd string) string {
	dir, _ := filepath.Rel(a.wd, step.Dir) // both absolute, in the module
	if a.windows {
		cmd = strings.ReplaceAll(cmd, "'", `"`)
	}
	switch {
	case dir == ".":
		return cmd
	case plainDir.MatchString(filepath.ToSlash(dir)):
	case a.windows:
		dir = `"` + dir + `"`
	default:
		dir = "'" + strings.ReplaceAll(dir, "'", `'\''`) + "'"
	}
	if a.windows {
		return "go -C " + dir + " " + strings.TrimPrefix(cmd, "go ")
	}
	return "cd " + dir + " && " + cmd
}

var plainDir = regexp.MustCompile(`^[\w./:-]+$`)

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

// taskArg is the number of the task arg names among a step's tasks; ok is
// false after a usage error.
func (a *app) taskArg(step course.Step, tasks []course.Task, arg string) (n int, ok bool) {
	n, _ = strconv.Atoi(arg)
	if slices.ContainsFunc(tasks, func(t course.Task) bool { return t.N == n }) {
		return n, true
	}
	a.usageError("%s has no task %q: its tasks are 1 to %d", step.Name, arg, len(tasks))
	return 0, false
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
					return nil, nil, fmt.Errorf("usage: -%s needs a value", name)
				}
				i++
				val = args[i]
			}
			flags[name] = val
		default:
			return nil, nil, fmt.Errorf("usage: unknown flag %s", arg)
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
