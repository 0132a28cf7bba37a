package platform

import (
	"context"
	"fmt"
	"io"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

// feedPeer is the server side of a stock feed, on a real loopback socket.
type feedPeer struct {
	addr  string
	conns chan net.Conn // connections accepted, for the test to take
}

// listenFeed listens on a free loopback port and accepts connections until
// the test ends, when it closes the listener and every connection.
func listenFeed(t *testing.T) *feedPeer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err, "listening on a loopback port for the fake stock feed")
	p := &feedPeer{addr: ln.Addr().String(), conns: make(chan net.Conn, 8)}
	var mu sync.Mutex
	var all []net.Conn
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		for {
			conn, err := ln.Accept()
			if err != nil {
				return // the listener is closed: the test has ended
			}
			mu.Lock()
			all = append(all, conn)
			mu.Unlock()
			select {
			case p.conns <- conn:
			default: // nobody takes it: closed at the end all the same
			}
		}
	}()
	t.Cleanup(func() {
		_ = ln.Close()
		<-stopped
		mu.Lock()
		defer mu.Unlock()
		for _, conn := range all {
			_ = conn.Close()
		}
	})
	return p
}

// accept returns the server side of the next connection to the feed.
func (p *feedPeer) accept(t *testing.T) net.Conn {
	t.Helper()
	select {
	case conn := <-p.conns:
		return conn
	case <-time.After(feedPatience):
		require.FailNow(t, "the fake stock feed accepted no connection in %v (task 3: dial its address)", feedPatience)
		return nil
	}
}

// connectFeed connects a Feed to a fake stock feed with net.Dial, so that
// Next can be tested without DialFeed. It returns the Feed and the server
// side of its connection, both closed when the test ends.
func connectFeed(t *testing.T) (*Feed, net.Conn) {
	t.Helper()
	peer := listenFeed(t)
	conn, err := net.DialTimeout("tcp", peer.addr, feedPatience)
	require.NoError(t, err, "connecting to the fake stock feed")
	t.Cleanup(func() { _ = conn.Close() })
	return newFeed(conn), peer.accept(t)
}

// writeFeed sends s from the server side of the feed.
func writeFeed(t *testing.T, server net.Conn, s string) {
	t.Helper()
	_, err := io.WriteString(server, s)
	require.NoError(t, err, "the fake stock feed writing %q", s)
}

// nextWithin calls feed.Next(ctx) and waits at most feedPatience for it. A
// Next still blocked then fails the test, which closes the connection to
// set it free. A Next that returns but leaves a goroutine behind ends the
// test at once.
func nextWithin(t *testing.T, feed *Feed, ctx context.Context) (string, error) {
	t.Helper()
	type result struct {
		line string
		err  error
	}
	before := goleak.IgnoreCurrent()
	done := make(chan result, 1)
	go func() {
		line, err := feed.Next(ctx)
		done <- result{line, err}
	}()
	select {
	case r := <-done:
		// Stop here, before another Next can read the feed beside it.
		require.NoError(t, goleak.Find(before), "Next returned %q, %v, and left a goroutine behind, still reading the feed: it would take the next line, "+
			"or read the feed's bufio.Reader at the same moment as a later Next (task 3: read in Next itself, and unblock the Read with a read deadline "+
			"set by context.AfterFunc — not a goroutine and a select)", r.line, r.err)
		return r.line, r.err
	case <-time.After(feedPatience):
		if ctx.Err() == nil {
			assert.Fail(t, fmt.Sprintf("Next(live ctx) was still waiting for a line %v after it was called, though the feed had sent one (task 3: read with f.readLine)", feedPatience))
		} else {
			assert.Fail(t, fmt.Sprintf("Next was still blocked reading the feed %v after it was called, though its context had ended (%v); want it to return as soon as its context ends (task 3: context.AfterFunc(ctx, …) that sets a read deadline in the past)", feedPatience, context.Cause(ctx)))
		}
		_ = feed.Close() // sets the blocked Read free
		r := <-done
		return r.line, r.err
	}
}
