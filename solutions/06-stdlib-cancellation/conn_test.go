package platform

import (
	"context"
	"errors"
	"io"
	"net"
	"os"
	"testing"
	"time"

	"github.com/icecreamcorp/go-cancellation-workshop/internal/leakcheck"
	"go.uber.org/goleak"
)

// These tests use real TCP connections on the loopback interface: the point
// is what a blocked Read on a real socket does. A correct Feed answers in
// microseconds; every wait gives up after feedPatience.
const feedPatience = 2 * time.Second

func TestDialFeed(t *testing.T) {
	begun(t, "DialFeed", func() error { _, err := DialFeed(ended(), "127.0.0.1:1"); return err })
	leakcheck.Check(t)

	t.Run("reads lines", func(t *testing.T) {
		addr, accept := listenFeed(t)
		feed, err := DialFeed(t.Context(), addr)
		if err != nil {
			t.Fatalf("DialFeed(ctx, %s) = %v, want a feed (dial with a net.Dialer's DialContext)", addr, err)
		}
		t.Cleanup(func() { _ = feed.Close() })
		writeFeed(t, accept(), "pistachio 6437\nneopolitan 0\n")
		for _, want := range []string{"pistachio 6437", "neopolitan 0"} {
			if got, err := next(t, feed, t.Context()); got != want || err != nil {
				t.Fatalf("Next = %q, %v; want %q, nil (return each line without its newline)", got, err, want)
			}
		}
	})

	t.Run("ended context", func(t *testing.T) {
		addr, _ := listenFeed(t)
		feed, err := DialFeed(ended(), addr)
		if feed != nil {
			_ = feed.Close()
		}
		if feed != nil || !errors.Is(err, errClosing) {
			t.Errorf("DialFeed(ended ctx) = %v, %v; want nil, %v (DialContext, and wrap context.Cause(ctx) with %%w)", feed, err, errClosing)
		}
	})

	t.Run("cancel during dial", func(t *testing.T) {
		// The name feed.test is looked up through this DNS server, which
		// never answers: it gives up after a second, or when the lookup's
		// context ends. net.Dial has no context, and waits the second.
		entered, how := make(chan string, 1), make(chan string, 1) // how: what ended the first lookup to end
		say := func(c chan string, s string) {
			select {
			case c <- s:
			default:
			}
		}
		saved := net.DefaultResolver
		net.DefaultResolver = &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, _, _ string) (net.Conn, error) {
			say(entered, "")
			select {
			case <-ctx.Done():
				say(how, "ctx")
				return nil, ctx.Err()
			case <-time.After(time.Second):
				say(how, "its own timer")
				return nil, errors.New("this test's DNS server never answers")
			}
		}}
		t.Cleanup(func() { net.DefaultResolver = saved })
		ctx, cancel := context.WithCancelCause(context.Background())
		defer cancel(nil)
		dial := goCall(func() (*Feed, error) { return DialFeed(ctx, "feed.test:4000") })
		t.Cleanup(func() {
			if dial.await(feedPatience); dial.got != nil {
				dial.got.Close()
			}
		})
		select {
		case <-entered:
		case <-dial.done:
			t.Fatalf("DialFeed(ctx, feed.test:4000) %v before looking the name up, want it to dial", dial)
		case <-time.After(feedPatience):
			t.Fatalf("DialFeed(ctx, feed.test:4000) did not look the name up in %v", feedPatience)
		}
		cancel(errClosing)
		if dial.await(feedPatience); !dial.returned() || !errors.Is(dial.err, errClosing) {
			t.Fatalf("DialFeed cancelled during the dial %v, want %v at once (DialContext; wrap context.Cause(ctx))", dial, errClosing)
		}
		if got := <-how; got != "ctx" {
			t.Errorf("the dial's name lookup was ended by %s, want by ctx (net.Dial takes no context; DialContext does)", got)
		}
	})
}

func TestConn(t *testing.T) {
	begun(t, "Feed.Next", func() error {
		client, server := net.Pipe()
		defer server.Close()
		defer client.Close()
		_, err := newFeed(client).Next(ended())
		return err
	})
	leakcheck.Check(t)

	t.Run("reads on after cancel", func(t *testing.T) {
		feed, server := connectFeed(t)
		ctx, cancel := context.WithCancelCause(context.Background())
		defer cancel(nil)
		writeFeed(t, server, "pist") // half a line, then nothing
		time.AfterFunc(20*time.Millisecond, func() { cancel(errClosing) })
		if _, err := next(t, feed, ctx); !errors.Is(err, errClosing) || errors.Is(err, os.ErrDeadlineExceeded) {
			t.Fatalf("Next cancelled while it waited = %v, want %v (return context.Cause(ctx), not the deadline's error)", err, errClosing)
		}
		writeFeed(t, server, "achio 6437\n")
		if got, err := next(t, feed, t.Context()); got != "pistachio 6437" || err != nil {
			t.Errorf("Next after a cancelled Next = %q, %v; want %q, nil (clear the read deadline with SetReadDeadline(time.Time{}); read with f.readLine)", got, err, "pistachio 6437")
		}
	})

	t.Run("nothing left behind", func(t *testing.T) {
		feed, server := connectFeed(t)
		first, cancelFirst := context.WithCancel(context.Background())
		defer cancelFirst()
		writeFeed(t, server, "pistachio 6437\n")
		if _, err := next(t, feed, first); err != nil {
			t.Fatalf("Next with a line waiting = %v", err)
		}
		// The second Next waits while the first one's context ends.
		time.AfterFunc(20*time.Millisecond, cancelFirst)
		time.AfterFunc(60*time.Millisecond, func() { _, _ = io.WriteString(server, "neopolitan 0\n") })
		if got, err := next(t, feed, t.Context()); got != "neopolitan 0" || err != nil {
			t.Errorf("Next = %q, %v after an earlier Next's ctx ended; want %q, nil (call AfterFunc's stop before Next returns)", got, err, "neopolitan 0")
		}
	})

	t.Run("ended context", func(t *testing.T) {
		feed, server := connectFeed(t)
		writeFeed(t, server, "pistachio 6437\nneopolitan 0\n") // one write: both lines arrive together
		if _, err := next(t, feed, t.Context()); err != nil {
			t.Fatalf("Next with a line waiting = %v", err)
		}
		if got, err := next(t, feed, ended()); !errors.Is(err, errClosing) {
			t.Errorf("Next(ended ctx) with a line waiting = %q, %v; want %v (ask ctx.Err() before reading)", got, err, errClosing)
		}
		if got, err := next(t, feed, t.Context()); got != "neopolitan 0" || err != nil {
			t.Errorf("Next after a Next(ended ctx) = %q, %v; want %q, nil (ask ctx.Err() before reading)", got, err, "neopolitan 0")
		}
	})
}

// listenFeed listens for the fake stock feed on a loopback port. accept
// returns the server side of the next connection.
func listenFeed(t *testing.T) (addr string, accept func() net.Conn) {
	t.Helper()
	ln := loopback(t).(*net.TCPListener)
	return ln.Addr().String(), func() net.Conn {
		t.Helper()
		_ = ln.SetDeadline(time.Now().Add(feedPatience))
		conn, err := ln.Accept()
		if err != nil {
			t.Fatalf("the fake stock feed accepted no connection: %v", err)
		}
		t.Cleanup(func() { _ = conn.Close() })
		return conn
	}
}

// connectFeed connects a Feed to a fake stock feed with net.Dial, to test
// Next without DialFeed, and returns it with the server's side.
func connectFeed(t *testing.T) (*Feed, net.Conn) {
	t.Helper()
	addr, accept := listenFeed(t)
	conn, err := net.DialTimeout("tcp", addr, feedPatience)
	if err != nil {
		t.Fatalf("connecting to the fake stock feed: %v", err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	return newFeed(conn), accept()
}

func writeFeed(t *testing.T, server net.Conn, s string) {
	t.Helper()
	if _, err := io.WriteString(server, s); err != nil {
		t.Fatalf("the fake stock feed writing %q: %v", s, err)
	}
}

// next calls feed.Next(ctx) and waits at most feedPatience for it, then
// closes the feed to set it free. A Next that leaves a goroutine behind
// ends the test: it would read the feed beside the next Next.
func next(t *testing.T, feed *Feed, ctx context.Context) (string, error) {
	t.Helper()
	before := goleak.IgnoreCurrent()
	c := goCall(func() (string, error) { return feed.Next(ctx) })
	if c.await(feedPatience); c.returned() {
		if err := goleak.Find(before); err != nil {
			t.Fatalf("Next = %q, %v, and left a goroutine reading the feed; want none (unblock the Read with a deadline set by context.AfterFunc): %v", c.got, c.err, err)
		}
		return c.got, c.err
	}
	if ctx.Err() == nil {
		t.Errorf("Next blocked for %v on a feed that had sent a line, want the line (read with f.readLine)", feedPatience)
	} else {
		t.Errorf("Next blocked for %v after its ctx ended, want %v (context.AfterFunc sets a read deadline in the past)", feedPatience, context.Cause(ctx))
	}
	_ = feed.Close() // sets Next free
	<-c.done
	return c.got, c.err
}
