// Command workshop is the workshop's runner: where am I, what next, hints on
// request, checks with vet and the race detector, the instructor's verify,
// and the load-test lab. Run it from anywhere in the repository:
//
//	go tool workshop            # progress, and the next task
//	go tool workshop load       # the load-test lab
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"

	"github.com/icecreamcorp/go-cancellation-workshop/internal/load"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// A command runs one subcommand and returns the process's exit code.
type command func(ctx context.Context, args []string, stdout, stderr io.Writer) int

var commands = map[string]command{
	"load": load.Main,
}

// run dispatches to a subcommand and returns the exit code: 0 success,
// 1 a check failed, 2 a usage error.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintln(stderr, "workshop: the overview is not built yet; try: go tool workshop load")
		return 2
	}
	cmd, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "workshop: unknown command %q\n", args[0])
		return 2
	}
	return cmd(ctx, args[1:], stdout, stderr)
}
