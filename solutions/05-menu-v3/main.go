// Command menu-service is Ice Cream Corp's Menu Service, version 3: GET /menu
// asks the stock service which flavours are in stock and answers with the
// menu, or with 504 Gateway Timeout if the stock service takes longer than
// -timeout — and then cancels the call, as it does when its own client
// leaves. While the stock service keeps timing out it answers 503 at once
// (-fail-after). GET /debug/vars counts what it aborted.
//
// This file is the server's shape, the same in every step of the workshop
// (the parts that are no step's lesson are in internal/serve). It is given
// complete. The lesson is in menu.go.
//
//	go run ./05-menu-v3 -addr 127.0.0.1:3000 -stock-url http://127.0.0.1:4000/stock -timeout 1s -fail-after 5
//	go run ./05-menu-v3 -h2c   # HTTP/2 without TLS to a stock service started with -h2c
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
	failAfter := flags.Int("fail-after", 5, "answer 503 at once after `n` timeouts in a row, for a cool-down (-cool-down); 0 never fails fast")
	coolDown := flags.Duration("cool-down", time.Second, "the first cool-down of failing fast, `d`; each failed trial doubles it, up to 30 × d")
	h2c := flags.Bool("h2c", false, "call the stock service over HTTP/2 without TLS (h2c; start it with -h2c too), and serve h2c beside HTTP/1.1")
	if err := flags.Parse(args); err != nil {
		return err
	}
	if *timeout <= 0 {
		return fmt.Errorf("-timeout %v: must be positive", *timeout)
	}
	if *failAfter < 0 {
		return fmt.Errorf("-fail-after %d: must be 0 (never fail fast) or more", *failAfter)
	}
	if *coolDown <= 0 {
		return fmt.Errorf("-cool-down %v: must be positive", *coolDown)
	}

	log := slog.New(slog.NewTextHandler(stdout, nil))
	client := newStockClient(*h2c)
	defer client.CloseIdleConnections()
	svc := newMenuService(client, *stockURL, *timeout)
	svc.log = log
	svc.breaker.failAfter = *failAfter
	svc.breaker.minCoolDown = *coolDown
	svc.breaker.maxCoolDown = 30 * *coolDown
	srv := serve.NewServer(svc.handler(), log)
	if *h2c {
		srv.Protocols = new(http.Protocols)
		srv.Protocols.SetHTTP1(true)
		srv.Protocols.SetUnencryptedHTTP2(true)
	}

	// Listen before serving, so that a busy port is an error returned here
	// and the log can say which port ":0" picked.
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	log.Info("menu service listening", "addr", ln.Addr().String(), "stock_url", *stockURL, "timeout", *timeout, "fail_after", *failAfter, "cool_down", *coolDown, "h2c", *h2c)
	return serve.Serve(ctx, srv, ln, serve.Grace, log)
}

// newStockClient returns the client for the stock service, this service's
// only upstream.
func newStockClient(h2c bool) *http.Client {
	// http.DefaultTransport keeps just 2 idle connections per host: under 100
	// concurrent requests most calls would open (and then throw away) a fresh
	// TCP connection.
	transport := http.DefaultTransport.(*http.Transport).Clone()
	transport.MaxIdleConnsPerHost = 100
	// The stock service's headers take a few hundred bytes. Left at zero,
	// the limit is the transport's default of 10 MiB for each call, held in
	// memory for every call in flight.
	transport.MaxResponseHeaderBytes = 64 << 10
	// No Client.Timeout: menu.go gives each call a context with its own
	// deadline, which also ends when our client leaves. (A cancelled HTTP/1.1
	// request cannot leave its connection reusable: the transport closes it,
	// and the next call dials a new one. The stock service's "connections"
	// counter shows that price.)
	if h2c {
		// HTTP/2 only, and without TLS: the transport speaks HTTP/2 from the
		// first byte ("prior knowledge") to http:// URLs, and fails against a
		// server that only speaks HTTP/1.1. All calls share one connection;
		// cancelling one sends a RST_STREAM frame for its stream, and the
		// connection stays open for the others.
		transport.Protocols = new(http.Protocols)
		transport.Protocols.SetUnencryptedHTTP2(true)
	}
	return &http.Client{
		Transport: transport,
		// A gateway calls the upstream it was configured with. Following a
		// redirect would send the call to whatever host and port the stock
		// service names: the 3xx comes back as it is, a non-200 answer (502).
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}
