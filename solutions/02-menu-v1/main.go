// Command menu-service is Ice Cream Corp's Menu Service, version 1: GET /menu
// asks the stock service which flavours are in stock and answers with the
// menu.
//
// This file is the server's shape, the same in every step of the workshop. It
// is given complete. The lesson is in menu.go.
//
//	go run ./02-menu-v1 -addr 127.0.0.1:3000 -stock-url http://127.0.0.1:4000/stock
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
// their connections are closed.
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
		fmt.Fprintln(os.Stderr, "menu-service:", err)
		os.Exit(1)
	}
}

// run parses args, serves until ctx is cancelled or the process receives
// SIGINT (Ctrl-C) or SIGTERM, then shuts down gracefully. It logs to stdout.
func run(ctx context.Context, args []string, stdout io.Writer) error {
	flags := flag.NewFlagSet("menu-service", flag.ContinueOnError)
	flags.SetOutput(stdout)
	addr := flags.String("addr", "localhost:3000", "`address` to listen on (:3000: every interface)")
	stockURL := flags.String("stock-url", "http://localhost:4000/stock", "`URL` of the stock service's GET /stock")
	if err := flags.Parse(args); err != nil {
		return err
	}

	log := slog.New(slog.NewTextHandler(stdout, nil))
	client := newStockClient()
	defer client.CloseIdleConnections()
	svc := newMenuService(client, *stockURL)
	svc.log = log
	srv := &http.Server{
		Handler:  svc.handler(),
		ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn),
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

	// Listen before serving, so that a busy port is an error returned here
	// and the log can say which port ":0" picked.
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	log.Info("menu service listening", "addr", ln.Addr().String(), "stock_url", *stockURL)
	return serve(ctx, srv, ln, shutdownGrace, log)
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
	// No Client.Timeout: v1 waits as long as the stock service takes. That is
	// the lesson of this step, and what step 03 changes.
	return &http.Client{
		Transport: transport,
		// A gateway calls the upstream it was configured with. Following a
		// redirect would send the call to whatever host and port the stock
		// service names: the 3xx comes back as it is, a non-200 answer (502).
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
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
