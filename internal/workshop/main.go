// Command workshop is the workshop's runner (go tool workshop): where am I,
// what next, hints, checks with vet and the race detector. Its commands are
// in usage below; README.md is the reference.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
)

// main leaves signals to each command: load passes SIGTERM and SIGHUP
// on to the lab (load.go), the others on Ctrl-C (appCommand).
func main() {
	os.Exit(run(context.Background(), os.Args[1:], os.Stdout, os.Stderr))
}

// A command runs one subcommand and returns the process's exit code.
type command func(ctx context.Context, args []string, stdout, stderr io.Writer) int

// Exit codes.
const (
	exitOK    = 0
	exitRed   = 1
	exitUsage = 2
)

var commands = map[string]command{
	"load":     load, // go tool lab, a tool of its own: the runner links none of the lab
	"check":    appCommand((*app).check),
	"watch":    appCommand((*app).watch),
	"hint":     appCommand((*app).hint),
	"reset":    appCommand((*app).reset),
	"mistakes": appCommand((*app).mistakes),
	"overview": appCommand((*app).overview),
	"help":     help,
	"-h":       help,
	"-help":    help,
	"--help":   help,
}

// run dispatches to a subcommand and returns the exit code: 0 success,
// 1 a check failed, 2 a usage error.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		args = []string{"overview"}
	}
	cmd, ok := commands[args[0]]
	if !ok && looksLikeStep(args[0]) {
		fmt.Fprintf(stderr, "workshop: %q is a step, not a command: go tool workshop check %s (or hint %s)\n", args[0], args[0], args[0])
		return exitUsage
	}
	if !ok {
		fmt.Fprintf(stderr, "workshop: unknown command %q\n\n", args[0])
		help(ctx, nil, stderr, stderr)
		return exitUsage
	}
	return cmd(ctx, args[1:], stdout, stderr)
}

const usage = `go tool workshop: the workshop's runner

  go tool workshop                      where you are: every step and task, and the next task
  go tool workshop check [STEP]         go vet, then the step's tests with -race; the first failure
  go tool workshop watch [STEP]         check again each time you save a Go file of the step
  go tool workshop hint [STEP] [TASK]   one more hint each time you ask (-all: every hint)
  go tool workshop reset [-y] STEP      put the step's starter files back (asks first), as the
                                        workshop's branch has them (upstream, else origin; -from REF);
                                        what it replaces is kept: reset -undo STEP brings it back
  go tool workshop mistakes [STEP] [TASK]  once a task is green: the wrong answers its tests reject,
                                        each with its diff and the message the tests give it
  go tool workshop load                 the load-test lab

Instructors: go test ./solutions/... checks every exercise and solution (solutions/README.md).

STEP is a number (05, 5), a folder (05-menu-v3) or a path to one (../05-menu-v3); without one,
the step folder you are in, else the step you are working in: of the steps not done, the one
whose files you changed last (hints/ aside), else the first not done. A step is done when its tests pass and go vet is clean.
Exit codes: 0 green (or a reset you declined), 1 red, 2 a usage error (or reset with no answer: -y).
`

func help(_ context.Context, _ []string, stdout, _ io.Writer) int {
	fmt.Fprint(stdout, usage)
	return exitOK
}

// looksLikeStep reports whether arg names a step rather than a command: a
// number (5, 05) or a folder (05-menu-v3, ./05-menu-v3/).
func looksLikeStep(arg string) bool {
	arg = strings.TrimLeft(arg, `./\`)
	return len(arg) > 0 && arg[0] >= '0' && arg[0] <= '9'
}

// appCommand runs a command that needs the module: it finds the module's
// root from the working folder. -h (anywhere) shows the usage instead.
func appCommand(f func(*app, context.Context, []string) int) command {
	return func(ctx context.Context, args []string, stdout, stderr io.Writer) int {
		for _, arg := range args {
			if arg == "-h" || arg == "-help" || arg == "--help" {
				return help(ctx, nil, stdout, stderr)
			}
		}
		a, err := newApp(stdout, stderr)
		if err != nil {
			fmt.Fprintf(stderr, "workshop: %v\n", err)
			return exitUsage
		}
		ctx, stop := signal.NotifyContext(ctx, os.Interrupt)
		defer stop()
		return f(a, ctx, args)
	}
}
