package platform

import (
	"context"
	"net"
	"net/http"
	"time"
)

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
	// TODO(task 6): serve h on ln with an http.Server (ReadHeaderTimeout of a
	// few seconds, ReadTimeout: readTimeout, IdleTimeout: idleTimeout), in a
	// goroutine, until a context from signal.NotifyContext ends; call its stop
	// function then, so that a second signal is not caught. Shut down with
	// Server.Shutdown, bounded by grace. Give requests a base context
	// (Server.BaseContext) that Ctrl-C does not cancel, that carries the
	// channel Stopping reads (stored as a <-chan struct{}, the type Stopping
	// asserts: a chan struct{} would read back as nil), and that ends when
	// the grace is over.
	return errNotImplemented
}

// idleTimeout is how long Serve keeps a connection open that waits for its
// next request. A variable, so that the tests can shorten it.
var idleTimeout = time.Minute

// readTimeout bounds the reading of a whole request, body included. A
// variable, so that the tests can shorten it.
var readTimeout = 10 * time.Second
