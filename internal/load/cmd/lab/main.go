// Command lab is the load-test lab, a tool of this module of its own:
// `go tool workshop load [flags]` runs it as `go tool lab [flags]`, so the
// runner never links hey's requester, x/net/http2 or crypto/tls. Its flags
// and exit codes are load.Main's.
package main

import (
	"context"
	"os"

	"github.com/icecreamcorp/go-cancellation-workshop/internal/load"
)

func main() {
	os.Exit(load.Main(context.Background(), os.Args[1:], os.Stdout, os.Stderr))
}
