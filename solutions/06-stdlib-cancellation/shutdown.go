package platform

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"
)

// errGraceOver is the cause a request's context carries when the shutdown's
// grace ran out before the request finished.
var errGraceOver = errors.New("the shutdown's grace period is over")

// stoppingKey is the context key under which Serve's requests find the
// channel that Stopping returns.
type stoppingKey struct{}

// Stopping returns a channel that is closed when the Serve that handles the
// request begins to shut down. A handler that may run long — a stream, a
// long poll, a big upload — selects on it to wrap up early; its request's
// context, r.Context(), ends only when the grace is over. Outside Serve,
// Stopping returns nil: a channel that is never ready.
func Stopping(ctx context.Context) <-chan struct{} {
	stopping, _ := ctx.Value(stoppingKey{}).(<-chan struct{})
	return stopping
}

// Serve serves h on ln until ctx ends or the process receives SIGINT (Ctrl-C)
// or SIGTERM. Then it shuts down gracefully: it stops accepting connections
// at once, closes Stopping's channel, and lets the requests in flight finish
// for up to grace. When the grace is over it cancels the requests still
// running (their r.Context() ends) and returns. A second signal during the
// grace is not caught: it stops the process at once, as Ctrl-C usually does.
//
// Serve returns nil after a shutdown in which every request finished within
// the grace, an error wrapping context.DeadlineExceeded when the grace ran
// out first, and the error of http.Server.Serve if serving failed.
func Serve(ctx context.Context, ln net.Listener, h http.Handler, grace time.Duration) error {
	// List the signals: NotifyContext(ctx) with none would relay every
	// signal, even SIGURG, which the Go runtime sends itself to preempt
	// goroutines — and the service would stop for no reason. SIGINT is
	// Ctrl-C in a terminal; SIGTERM is what kill, systemd, Docker and
	// Kubernetes send. On Windows, os/signal delivers Ctrl-C and Ctrl-Break
	// as os.Interrupt, and the console's close, logoff and shutdown events as
	// syscall.SIGTERM: the same two signals cover both. After those three
	// events Windows ends the process soon anyway ("the process will still get
	// terminated unless it exits", os/signal's doc): the grace may not run out.
	sigCtx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()

	// Every request's context derives from the base context. The signal's
	// context would be the wrong base: it ends at Ctrl-C, so every request
	// in flight would be cancelled at once — no grace at all. This one
	// keeps ctx's values but not its cancellation, carries the signal's
	// Done channel for Stopping, and is cancelled, with a cause, only when
	// the grace is over.
	base, cancelRequests := context.WithCancelCause(
		context.WithValue(context.WithoutCancel(ctx), stoppingKey{}, sigCtx.Done()))
	defer cancelRequests(nil)
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 5 * time.Second, // a client that never finishes its headers is dropped
		// A keep-alive connection waiting for its next request is closed after
		// idleTimeout. ReadHeaderTimeout does not cover that wait: net/http
		// starts it once 4 bytes of the next request are in. Without
		// IdleTimeout (or ReadTimeout), an idle connection, or one that sent
		// 3 bytes and stopped, holds a goroutine and a file descriptor for as
		// long as its client keeps it open. ReadTimeout bounds a request's
		// body: before it answers, net/http reads what is left of a small
		// body the handler did not read, and with no deadline a client that
		// declares a body and never sends it holds its connection, and the
		// shutdown waiting for it, for ever. (Once a body is read, net/http
		// clears the deadline: a long handler is not cut short.)
		ReadTimeout: readTimeout,
		IdleTimeout: idleTimeout,
		BaseContext: func(net.Listener) context.Context { return base },
	}

	served := make(chan error, 1) // buffered: Serve's goroutine never waits for us
	go func() { served <- srv.Serve(ln) }()
	select {
	case err := <-served:
		return err // serving failed before anyone asked it to stop
	case <-sigCtx.Done():
	}
	// From now on a second Ctrl-C is not ours: the default behaviour is
	// back, and it ends the process at once — the way out when the grace is
	// too long for the person at the keyboard.
	stop()

	// sigCtx is already cancelled: Shutdown given it would give up at once
	// and cut every request in flight. Shutdown needs a context of its own,
	// with a deadline — without one, a request that never ends would keep
	// the service from ever stopping.
	shutdownCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), grace)
	defer cancel()
	// Shutdown closes the listener (new connections are refused), closes
	// idle connections, and waits for the active ones to finish their
	// request. It cancels nothing: the requests still running when the
	// grace is over learn it from their context, and Close closes their
	// connections. (Close alone, instead of Shutdown, would cut every
	// request in flight.)
	err := srv.Shutdown(shutdownCtx)
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		// Shutdown's context ended: the grace is over, requests still run.
		cancelRequests(errGraceOver)
		srv.Close()
		err = fmt.Errorf("shutdown: %v grace over before every request finished: %w", grace, err)
	case err != nil:
		// Every request finished, but closing the listener failed: nothing
		// to cancel, and no grace ran out. Say what failed.
		err = fmt.Errorf("shutdown: closing the listener: %w", err)
	}
	<-served // http.ErrServerClosed, now that the listener is closed
	return err
}

// idleTimeout is how long Serve keeps a connection open that waits for its
// next request. A variable, so that the tests can shorten it.
var idleTimeout = time.Minute

// readTimeout bounds the reading of a whole request, body included. A
// variable, so that the tests can shorten it.
var readTimeout = 10 * time.Second
