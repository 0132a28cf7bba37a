package platform

import (
	"context"
	"errors"
	"io"
	"net"
	"os"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/icecreamcorp/go-cancellation-workshop/internal/leakcheck"
)

// feedPatience bounds every wait on a real socket: a correct Feed answers
// in microseconds.
const feedPatience = 2 * time.Second

func TestDialFeed(t *testing.T) {
	begun(t, "DialFeed", func() error { _, err := DialFeed(ended(), "127.0.0.1:1"); return err })
	leakcheck.Check(t)
	ln := loopback(t)
	addr := ln.Addr().String()
	go func() { // the stock feed: one line, then goodbye
		if conn, err := ln.Accept(); err == nil {
			_, _ = io.WriteString(conn, "pistachio 6437\n")
			_ = conn.Close()
		}
	}()

	t.Run("reads lines", func(t *testing.T) {
		feed, err := DialFeed(t.Context(), addr)
		if err != nil {
			t.Fatalf("DialFeed(ctx, %s) = %v, want a feed (dial with a net.Dialer's DialContext)", addr, err)
		}
		defer feed.Close() // sets a blocked Next free
		next := goCall(func() (string, error) { return feed.Next(t.Context()) })
		if next.await(feedPatience); next.got != "pistachio 6437" || next.err != nil {
			t.Fatalf("Next %v, want (pistachio 6437, <nil>) (return each line without its newline)", next)
		}
	})

	t.Run("dial errors", func(t *testing.T) {
		past := time.Now().Add(-time.Second)
		expiredWithCause, cancel := context.WithDeadlineCause(context.Background(), past, errClosing)
		defer cancel()
		expired, cancel := context.WithDeadline(context.Background(), past)
		defer cancel()
		for _, c := range []struct {
			name string
			ctx  context.Context
			want error
			fix  string
		}{
			{name: "ended ctx", ctx: ended(), want: errClosing, fix: "DialContext, and wrap context.Cause(ctx) with %w"},
			{name: "ctx past its deadline, with a cause", ctx: expiredWithCause, want: errClosing,
				fix: "when ctx.Err() != nil, wrap context.Cause(ctx): net's error says i/o timeout"},
			{name: "ctx past its deadline", ctx: expired, want: context.DeadlineExceeded, fix: "wrap with %w"},
		} {
			if feed, err := DialFeed(c.ctx, addr); feed != nil || !errors.Is(err, c.want) {
				t.Errorf("DialFeed(%s) = %v, %v; want nil, %v (%s)", c.name, feed, err, c.want, c.fix)
			}
		}
		if feed, err := DialFeed(t.Context(), "127.0.0.1"); feed != nil || !errors.As(err, new(*net.AddrError)) {
			t.Errorf("DialFeed(ctx, 127.0.0.1) = %v, %v; want nil, missing port (the dial's own error when ctx is live, wrapped with %%w)", feed, err)
		}
	})

	// What DialFeed's solution says of net: a dial that ctx ends fails with
	// net's own error, whose text is not ctx.Err()'s but which errors.Is
	// matches with it.
	t.Run("net's dial errors", func(t *testing.T) {
		cancelled, cancel := context.WithCancel(context.Background())
		cancel()
		expired, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
		defer cancel()
		for _, c := range []struct {
			ctx  context.Context
			is   error
			text string
		}{
			{ctx: cancelled, is: context.Canceled, text: "operation was canceled"},
			{ctx: expired, is: context.DeadlineExceeded, text: "i/o timeout"},
		} {
			var d net.Dialer
			if _, err := d.DialContext(c.ctx, "tcp", addr); !errors.Is(err, c.is) || !strings.HasSuffix(err.Error(), c.text) || err.Error() == c.is.Error() {
				t.Errorf("DialContext(ctx ended with %v) = %v; want an error that errors.Is %[1]v, ending in %q", c.is, err, c.text)
			}
		}
	})

	t.Run("cancel during dial", func(t *testing.T) {
		// feed.test is looked up through this DNS server: it answers
		// nothing until the caller cancels the lookup, or the test ends.
		entered, release := make(chan struct{}, 1), make(chan struct{})
		saved := net.DefaultResolver
		net.DefaultResolver = &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, _, _ string) (net.Conn, error) {
			select {
			case entered <- struct{}{}:
			default:
			}
			select {
			case <-ctx.Done():
				if errors.Is(ctx.Err(), context.Canceled) {
					return nil, ctx.Err()
				}
				<-release // the lookup's own timeout: no cancel reached it
			case <-release:
			}
			return nil, errors.New("this test's DNS server never answers")
		}}
		ctx, cancel := context.WithCancelCause(context.Background())
		defer cancel(nil)
		dial := goCall(func() (*Feed, error) { return DialFeed(ctx, "feed.test:4000") })
		t.Cleanup(func() {
			close(release)
			if dial.await(feedPatience); dial.got != nil {
				dial.got.Close()
			}
			net.DefaultResolver = saved
		})
		select {
		case <-entered:
		case <-dial.done:
			t.Fatalf("DialFeed(ctx, feed.test:4000) %v before looking the name up, want it to dial", dial)
		case <-time.After(feedPatience):
			t.Fatalf("DialFeed(ctx, feed.test:4000) did not look the name up in %v", feedPatience)
		}
		cancel(errClosing)
		if dial.await(feedPatience); !dial.returned() || dial.got != nil || !errors.Is(dial.err, errClosing) {
			t.Fatalf("DialFeed cancelled during the dial %v, want (nil, %v) at once (DialContext; wrap context.Cause(ctx))", dial, errClosing)
		}
	})
}

// TestConn reads one feed, over net.Pipe in virtual time, with a new
// context for each Next; each context ends a second after its Next returns,
// in the middle of the next Next.
func TestConn(t *testing.T) {
	begun(t, "Feed.Next", func() error { // on a real connection: a Next that reads anyway must not crash
		client, server := net.Pipe()
		defer server.Close()
		defer client.Close()
		_, err := newFeed(client).Next(ended())
		return err
	})
	leakcheck.Check(t)
	synctest.Test(t, func(t *testing.T) {
		client, server := net.Pipe()
		feed := newFeed(client)
		t.Cleanup(func() { client.Close(); server.Close() }) // sets a blocked Next free
		for _, s := range []struct {
			send string        // what the feed sends as Next is called
			end  time.Duration // when ctx ends with errClosing; <0: before Next
			want string
			err  error
			fix  string
		}{
			{send: "pistachio 6437\nneopolitan 0\n", end: 0, want: "pistachio 6437", fix: "read with f.readLine"},
			{send: "", end: -1, want: "", err: errClosing, fix: "ask ctx.Err() before reading"},
			{send: "", end: 0, want: "neopolitan 0", fix: "ask ctx.Err() before reading"},
			{send: "pist", end: 2 * time.Second, want: "", err: errClosing,
				fix: "context.AfterFunc sets a read deadline in the past; return context.Cause(ctx), not the deadline's error; call AfterFunc's stop before Next returns"},
			{send: "achio 6437\n", end: 0, want: "pistachio 6437", fix: "clear the read deadline with SetReadDeadline(time.Time{}); read with f.readLine"},
		} {
			ctx, cancel := context.WithCancelCause(context.Background())
			if s.end < 0 {
				cancel(errClosing)
			} else if s.end > 0 {
				time.AfterFunc(s.end, func() { cancel(errClosing) })
			}
			if s.send != "" {
				go func() { _, _ = io.WriteString(server, s.send) }()
			}
			next := goCall(func() (string, error) { return feed.Next(ctx) })
			next.await(time.Minute)
			if !next.returned() || next.took != max(s.end, 0) || next.got != s.want || !errors.Is(next.err, s.err) || errors.Is(next.err, os.ErrDeadlineExceeded) {
				t.Fatalf("fed %q, Next %v; want (%q, %v) after %v (%s)", s.send, next, s.want, s.err, max(s.end, 0), s.fix)
			}
			time.AfterFunc(time.Second, func() { cancel(errLeft) })
		}
	})
}
