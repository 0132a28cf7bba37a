// Command menu-service is Ice Cream Corp's Menu Service, version 2: GET /menu
// asks the stock service which flavours are in stock and answers with the
// menu, or with 504 Gateway Timeout if the stock service takes longer than
// -timeout.
//
// This file is the server's shape, the same in every step of the workshop
// (the parts that are no step's lesson are in internal/serve). It is given
// complete. The lesson is in menu.go.
//
//	go run ./03-menu-v2 -addr 127.0.0.1:3000 -stock-url http://127.0.0.1:4000/stock -timeout 1s
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/icecreamcorp/go-cancellation-workshop/internal/serve"
)

func main() {
	serve.Main("menu-service", run)
}

// run parses args, serves until ctx is cancelled or the process receives
// SIGINT (Ctrl-C) or SIGTERM, then shuts down gracefully. It logs to stdout.
func run(ctx context.Context, args []string, stdout io.Writer) error {
	flags := flag.NewFlagSet("menu-service", flag.ContinueOnError)
	flags.SetOutput(stdout)
	addr := flags.String("addr", "localhost:3000", "`address` to listen on (:3000: every interface)")
	stockURL := flags.String("stock-url", "http://localhost:4000/stock", "`URL` of the stock service's GET /stock")
	timeout := flags.Duration("timeout", time.Second, "answer 504 if the stock service has not answered within `timeout`")
	if err := flags.Parse(args); err != nil {
		return err
	}
	if *timeout <= 0 {
		return fmt.Errorf("-timeout %v: must be positive", *timeout)
	}

	log := slog.New(slog.NewTextHandler(stdout, nil))
	client := newStockClient()
	defer client.CloseIdleConnections()
	svc := newMenuService(client, *stockURL, *timeout)
	svc.log = log
	srv := serve.NewServer(svc.handler(), log)

	// Listen before serving, so that a busy port is an error returned here
	// and the log can say which port ":0" picked.
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	log.Info("menu service listening", "addr", ln.Addr().String(), "stock_url", *stockURL, "timeout", *timeout)
	return serve.Serve(ctx, srv, ln, serve.Grace, log)
}

// newStockClient returns the client for the stock service, this service's
// only upstream.
func newStockClient() *http.Client {
	// http.DefaultTransport keeps just 2 idle connections per host: under 100
	// concurrent requests most calls would open (and then throw away) a fresh
	// TCP connection.
	transport := http.DefaultTransport.(*http.Transport).Clone()
	transport.MaxIdleConnsPerHost = 100
	// The stock service's headers take a few hundred bytes. Left at zero,
	// the limit is the transport's default of 10 MiB for each call, held in
	// memory for every call in flight.
	transport.MaxResponseHeaderBytes = 64 << 10
	// No Client.Timeout: menu.go enforces -timeout by racing the call against
	// a timer, and leaves the call running. That is the lesson of this step,
	// and what step 05 changes.
	return &http.Client{
		Transport: transport,
		// A gateway calls the upstream it was configured with. Following a
		// redirect would send the call to whatever host and port the stock
		// service names: the 3xx comes back as it is, a non-200 answer (502).
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}
