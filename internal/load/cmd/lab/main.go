// Command lab is the load-test lab, `go tool lab`, which `go tool workshop
// load` runs: see load.Main and internal/load/README.md.
package main

import (
	"context"
	"os"

	"github.com/icecreamcorp/go-cancellation-workshop/internal/load"
)

func main() {
	os.Exit(load.Main(context.Background(), os.Args[1:], os.Stdout, os.Stderr))
}
