// Package serve is the server shape every service of the workshop shares
// (steps 01, 02, 03 and 05): the http.Server's time-outs, serving on a
// listener until Ctrl-C, then a graceful shutdown, and main's exit code. It
// is given complete, and it is not a step's lesson: each main.go reads as the
// shape in a few lines, and the lesson is in the step's other files. Step 06
// (task 6) writes a shutdown of its own, which is its lesson.
package serve

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

// Grace is how long Ctrl-C lets in-flight requests finish before their
// connections are closed, which cancels their contexts.
const Grace = 5 * time.Second

// IdleTimeout is how long a keep-alive connection may wait for its next
// request; see NewServer. A variable only so that a step's main_test.go can
// shorten it.
var IdleTimeout = 30 * time.Second

// ReadTimeout bounds the reading of a whole request, body included; see
// NewServer. A variable only so that a step's main_test.go can shorten it.
var ReadTimeout = 10 * time.Second

// Main is a service's main: it calls run with the command line's arguments
// and stdout, and exits 1 with the error, named after the command, if run
// returns one (-h's flag.ErrHelp aside: the usage is not a failure).
func Main(name string, run func(ctx context.Context, args []string, stdout io.Writer) error) {
	if err := run(context.Background(), os.Args[1:], os.Stdout); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return // -h printed the usage: not a failure
		}
		fmt.Fprintln(os.Stderr, name+":", err)
		os.Exit(1)
	}
}

// NewServer returns a server for h that logs its own errors to log, as
// warnings, and does not let a connection that sends no whole request hold
// its file descriptor for long.
func NewServer(h http.Handler, log *slog.Logger) *http.Server {
	return &http.Server{
		Handler:  h,
		ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn),
		// ReadHeaderTimeout counts from a connection's start to the end of
		// its first request's headers, and for each later request from its
		// first four bytes; between two requests, until those four bytes
		// arrive, only IdleTimeout counts. Without it, a client that sends
		// one request and then nothing, or three bytes of the next, keeps
		// its connection forever. ReadTimeout bounds a request's body: before
		// it answers, net/http reads what is left of a small body the handler
		// did not read, and without a deadline a client that declares a body
		// and never sends it keeps its connection, and any shutdown waiting
		// for it, forever. (Once a body is read, net/http clears the
		// deadline: it does not cut short a long handler.)
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       ReadTimeout,
		IdleTimeout:       IdleTimeout,
	}
}

// Serve serves srv on ln until ctx is cancelled or the process receives
// SIGINT (Ctrl-C) or SIGTERM, then shuts down gracefully: it stops accepting
// connections and lets the requests in flight finish for up to grace. It
// returns nil if every connection was done by then. When the grace runs
// out (a request still in flight, or a client that connected and has sent
// nothing yet), it closes the connections left, which cancels their
// requests' contexts, and returns an error: a shutdown that cut requests
// short is not clean, and main exits 1.
func Serve(ctx context.Context, srv *http.Server, ln net.Listener, grace time.Duration, log *slog.Logger) error {
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
