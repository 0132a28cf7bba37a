package platform

import (
	"bufio"
	"context"
	"net"
	"strings"
)

// A Feed is a connection to the stock feed: a TCP service that sends a line
// each time a flavour's stock changes, such as "pistachio 6437".
type Feed struct {
	conn net.Conn
	r    *bufio.Reader
	//lint:ignore U1000 task 3 reads with readLine, which keeps it
	partial string // the start of a line that an error cut short
}

// DialFeed connects to the stock feed at addr ("host:port"), and gives up
// as soon as ctx ends, with an error that wraps context.Cause(ctx). The
// context bounds the dial only: once DialFeed has returned, ending ctx does
// nothing to the connection.
func DialFeed(ctx context.Context, addr string) (*Feed, error) {
	// TODO(task 3): dial with a net.Dialer's DialContext, which gives up when
	// ctx ends; net.Dial takes no context. When the dial fails because ctx
	// ended, return an error that wraps context.Cause(ctx).
	return nil, errNotImplemented
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
	// TODO(task 3): a Read on a net.Conn takes no context. Use
	// context.AfterFunc to set a read deadline in the past on f.conn when ctx
	// ends (SetReadDeadline), which makes the blocked read return. Before
	// Next returns, stop the AfterFunc and clear the deadline, and report
	// the context's cause rather than the read's timeout error. Read with
	// f.readLine.
	return "", errNotImplemented
}

// readLine reads the next line, without its newline. A line that an error
// cuts short is kept, and completed by the next call.
//
//lint:ignore U1000 task 3 reads with it
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
