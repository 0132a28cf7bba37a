// Package load is the load-test lab behind `go tool workshop load`.
package load

import (
	"context"
	"fmt"
	"io"
)

// Main runs the lab with the command-line arguments that follow "load" and
// returns the process's exit code.
func Main(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fmt.Fprintln(stderr, "workshop load: not built yet")
	return 1
}
