package platform

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"strings"
	"time"
)

// A Feed is a connection to the stock feed: a TCP service that sends a line
// each time a flavour's stock changes, such as "pistachio 6437".
type Feed struct {
	conn    net.Conn
	r       *bufio.Reader
	partial string // the start of a line that an error cut short
}

// DialFeed connects to the stock feed at addr ("host:port"), and gives up
// as soon as ctx ends, with an error that wraps context.Cause(ctx). The
// context bounds the dial only: once DialFeed has returned, ending ctx does
// nothing to the connection.
func DialFeed(ctx context.Context, addr string) (*Feed, error) {
	// net.Dial(network, addr) would do the same, and wait as long as the
	// operating system lets a dial hang: minutes, for a host that drops the
	// packets. A Dialer's DialContext gives up when ctx ends. (Go 1.26 adds
	// DialTCP, DialUDP, DialIP and DialUnix to Dialer, with a context too.)
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		if ctx.Err() != nil {
			// DialContext's error is not ctx.Err() but net's own: its text
			// is "operation was canceled" for context.Canceled and "i/o
			// timeout" for DeadlineExceeded, and only errors.Is matches it
			// with them. Neither carries the reason the caller gave, and a
			// check of errors.Is(err, context.Canceled) alone misses a
			// deadline: ask the context, and for its cause.
			return nil, fmt.Errorf("dialing the stock feed at %s: %w", addr, context.Cause(ctx))
		}
		return nil, fmt.Errorf("dialing the stock feed at %s: %w", addr, err)
	}
	return newFeed(conn), nil
}

// newFeed reads the feed from conn.
func newFeed(conn net.Conn) *Feed {
	return &Feed{conn: conn, r: bufio.NewReader(conn)}
}

// Next waits for the feed's next line and returns it, without its newline,
// or io.EOF once the feed has closed the connection.
//
// When ctx ends first, Next returns context.Cause(ctx) at once — not the
// "i/o timeout" of the deadline it may use to get there — and the feed
// stays open: the next call to Next reads on, from where this one stopped.
// When ctx has already ended, Next returns its cause without reading.
func (f *Feed) Next(ctx context.Context) (string, error) {
	if ctx.Err() != nil {
		return "", context.Cause(ctx)
	}
	// A Read on a net.Conn takes no context, and nothing can interrupt a
	// blocked Read but a deadline or Close. context.AfterFunc (Go 1.21)
	// bridges the two: when ctx ends, it runs our function in a goroutine of
	// its own, and a read deadline in the past makes the blocked Read return
	// at once with os.ErrDeadlineExceeded. Close would unblock it too, but
	// would end the feed for good; a deadline can be cleared.
	//
	// Not time.AfterFunc: that one fires after a duration, whatever happens
	// to ctx. (conn.SetReadDeadline(deadline) alone would do for a ctx with a
	// deadline, and nothing for one that is cancelled.)
	unblocked := make(chan struct{})
	stop := context.AfterFunc(ctx, func() {
		defer close(unblocked)
		// The error is only ever that the connection is closed, and then
		// the Read has returned already.
		_ = f.conn.SetReadDeadline(time.Now())
	})
	line, err := f.readLine()

	// Unhook before returning. stop() reports true if our function will now
	// never run: ctx is still live, and nothing was touched. Forget to stop
	// it, and it fires when ctx ends later — in the middle of a later Next,
	// failing that read with a deadline nobody asked for.
	if cancelled := !stop(); cancelled {
		// The function has started: wait until it is done, or its deadline
		// could land after we clear it. Then clear it (the zero time), or
		// every later Read on this connection fails at once.
		<-unblocked
		_ = f.conn.SetReadDeadline(time.Time{})
		if err != nil {
			// The read failed because we set the deadline: the reason is
			// the context's, not "i/o timeout". A line that did arrive
			// before the deadline bit is returned as usual below.
			return "", context.Cause(ctx)
		}
	}
	return line, err
}

// readLine reads the next line, without its newline. A line that an error
// cuts short is kept, and completed by the next call.
func (f *Feed) readLine() (string, error) {
	line, err := f.r.ReadString('\n')
	if err != nil {
		f.partial += line
		return "", err
	}
	line, f.partial = f.partial+line, ""
	return strings.TrimSuffix(line, "\n"), nil
}

// Close closes the connection to the feed.
func (f *Feed) Close() error {
	return f.conn.Close()
}
