// Command stock-service is Ice Cream Corp's Unpredictable Stock Service:
// GET /stock answers with the flavours in stock after a random delay, and
// GET /debug/vars shows what the service has been through.
//
// This file is the server's shape, the same in every step of the workshop. It
// is given complete; step 06 (../06-stdlib-cancellation) takes it apart. The
// lesson is in stock.go.
//
//	go run ./01-stock-service -addr 127.0.0.1:4000 -max-delay 10s
//	go run ./01-stock-service -h2c   # HTTP/2 without TLS as well, for menu v3's -h2c
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"
)

// shutdownGrace is how long Ctrl-C lets in-flight requests finish before
// their connections are closed, which cancels their contexts.
const shutdownGrace = 5 * time.Second

// idleTimeout is how long a keep-alive connection may wait for its next
// request; see the http.Server below. A variable only so that main_test.go
// can shorten it.
var idleTimeout = 30 * time.Second

// readTimeout bounds the reading of a whole request, body included; see the
// http.Server below. A variable only so that main_test.go can shorten it.
var readTimeout = 10 * time.Second

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stdout); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return // -h printed the usage: not a failure
		}
		fmt.Fprintln(os.Stderr, "stock-service:", err)
		os.Exit(1)
	}
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
	srv := &http.Server{
		Handler:   svc.handler(),
		ConnState: svc.connState,
		ErrorLog:  slog.NewLogLogger(log.Handler(), slog.LevelWarn),
		// A connection that sends no whole request must not hold its file
		// descriptor for long. ReadHeaderTimeout counts from a connection's
		// start to the end of its first request's headers, and for each later
		// request from its first four bytes; between two requests, until those
		// four bytes arrive, only IdleTimeout counts. Without it, a client that
		// sends one request and then nothing, or three bytes of the next,
		// keeps its connection forever. ReadTimeout bounds a request's
		// body: before it answers, net/http reads what is left of a small
		// body the handler did not read, and without a deadline a client
		// that declares a body and never sends it keeps its connection, and
		// any shutdown waiting for it, forever. (Once a body is read, net/http
		// clears the deadline: it does not cut short a long handler.)
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       readTimeout,
		IdleTimeout:       idleTimeout,
	}
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
	return serve(ctx, srv, ln, shutdownGrace, log)
}

// serve serves srv on ln until ctx is cancelled or the process receives
// SIGINT (Ctrl-C) or SIGTERM, then shuts down gracefully: it stops accepting
// connections and lets the requests in flight finish for up to grace. It
// returns nil if every connection was done by then. When the grace runs
// out (a request still in flight, or a client that connected and has sent
// nothing yet), it closes the connections left, which cancels their
// requests' contexts, and returns an error: a shutdown that cut requests
// short is not clean, and main exits 1.
func serve(ctx context.Context, srv *http.Server, ln net.Listener, grace time.Duration, log *slog.Logger) error {
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	served := make(chan error, 1) // buffered: Serve's goroutine never waits for us
	go func() { served <- srv.Serve(ln) }()

	select {
	case err := <-served:
		return err // Serve failed before anyone asked it to stop
	case <-ctx.Done():
	}
	stop() // from now on a second Ctrl-C kills the process at once

	log.Info("shutting down", "grace", grace)
	// ctx is already cancelled: Shutdown needs a context of its own, which
	// keeps ctx's values but not its cancellation, and has a deadline.
	shutdownCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), grace)
	defer cancel()
	err := srv.Shutdown(shutdownCtx)
	if err != nil {
		log.Warn("grace period over: closing the remaining connections")
		srv.Close() // closing a connection cancels its request's context
		err = fmt.Errorf("shutdown: %v grace over with connections still open: %w", grace, err)
	}
	<-served // http.ErrServerClosed, now that the listener is closed
	if err == nil {
		log.Info("stopped")
	}
	return err
}
