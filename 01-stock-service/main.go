// Command stock-service is Ice Cream Corp's Unpredictable Stock Service:
// GET /stock answers with the flavours in stock after a random delay, and
// GET /debug/vars shows what the service has been through.
//
// This file is the server's shape, the same in every step of the workshop
// (the parts that are no step's lesson are in internal/serve). It is given
// complete; step 06 (../06-stdlib-cancellation) takes it apart. The
// lesson is in stock.go.
//
//	go run ./01-stock-service -addr 127.0.0.1:4000 -max-delay 10s
//	go run ./01-stock-service -h2c   # HTTP/2 without TLS as well, for menu v3's -h2c
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
	serve.Main("stock-service", run)
}

// run parses args, serves until ctx is cancelled or the process receives
// SIGINT (Ctrl-C) or SIGTERM, then shuts down gracefully. It logs to stdout.
func run(ctx context.Context, args []string, stdout io.Writer) error {
	flags := flag.NewFlagSet("stock-service", flag.ContinueOnError)
	flags.SetOutput(stdout)
	addr := flags.String("addr", "localhost:4000", "`address` to listen on (:4000: every interface)")
	maxDelay := flags.Duration("max-delay", 10*time.Second, "GET /stock waits a random time in [0, `max-delay`)")
	h2c := flags.Bool("h2c", false, "serve HTTP/2 without TLS (h2c, prior knowledge) beside HTTP/1.1")
	if err := flags.Parse(args); err != nil {
		return err
	}
	if *maxDelay < 0 {
		return fmt.Errorf("-max-delay %v: must not be negative", *maxDelay)
	}

	log := slog.New(slog.NewTextHandler(stdout, nil))
	svc := newStockService(uniformDelay(*maxDelay), log)
	srv := serve.NewServer(svc.handler(), log)
	srv.ConnState = svc.connState // counts the connections /debug/vars shows
	if *h2c {
		// Over HTTP/1.1 a client can only cancel a request by closing its
		// connection. Over HTTP/2 it resets one stream (a RST_STREAM frame)
		// and the connection carries on; the handler's context ends either
		// way. Without TLS there is no negotiation: the client must know in
		// advance ("prior knowledge"), as menu v3's -h2c does.
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
	log.Info("stock service listening", "addr", ln.Addr().String(), "max_delay", *maxDelay, "h2c", *h2c)
	return serve.Serve(ctx, srv, ln, serve.Grace, log)
}
