package platform

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"github.com/icecreamcorp/go-cancellation-workshop/internal/leakcheck"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// These tests use real TCP connections on the loopback interface: the point
// is what a blocked Read on a real socket does. Their waits are short, and
// their limits generous: a correct Feed answers in microseconds.
const feedPatience = 2 * time.Second

func TestDialFeed(t *testing.T) {
	begun(t, "DialFeed", func() error { _, err := DialFeed(ended(), "127.0.0.1:1"); return err })
	leakcheck.Check(t)

	t.Run("reads lines", func(t *testing.T) {
		peer := listenFeed(t)
		feed, err := DialFeed(t.Context(), peer.addr)
		require.NoError(t, err, "DialFeed(live ctx, %s) with the feed listening (task 3: dial with a net.Dialer's DialContext)", peer.addr)
		t.Cleanup(func() { _ = feed.Close() })
		server := peer.accept(t)
		writeFeed(t, server, "pistachio 6437\nneopolitan 0\n")
		for _, want := range []string{"pistachio 6437", "neopolitan 0"} {
			got, err := nextWithin(t, feed, t.Context())
			assert.NoError(t, err, "Next(live ctx) with a line waiting (task 3)")
			assert.Equal(t, want, got, "Next(live ctx) on a feed that sent \"pistachio 6437\\nneopolitan 0\\n\" (task 3: return each line, without its newline)")
		}
	})

	t.Run("ended context", func(t *testing.T) {
		peer := listenFeed(t)
		errClosing := errors.New("the shop is closing")
		ctx, cancel := context.WithCancelCause(context.Background())
		cancel(errClosing)
		feed, err := DialFeed(ctx, peer.addr)
		if feed != nil {
			_ = feed.Close()
		}
		assert.Nil(t, feed, "DialFeed(ctx that had already ended, %s) connected; want it to give up (task 3: net.Dial takes no context, a net.Dialer's DialContext does)", peer.addr)
		assert.ErrorIs(t, err, errClosing, "DialFeed(ctx cancelled with the cause %q)'s error (task 3: when the dial failed because ctx ended, wrap context.Cause(ctx))", errClosing)
	})

	t.Run("cancel during dial", func(t *testing.T) {
		// The feed's name is looked up first, and this test's DNS server
		// never answers: it waits until the lookup's context ends, or gives
		// up on its own after a second. A dial that watches ctx ends the
		// lookup with it; net.Dial, which has no context, waits.
		entered := make(chan struct{}, 1)
		var firstEnd atomic.Value // what ended the first lookup to end: "ctx" or "timer"
		ended := make(chan struct{}, 1)
		useResolver(t, &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, network, address string) (net.Conn, error) {
			select {
			case entered <- struct{}{}:
			default:
			}
			defer func() {
				select {
				case ended <- struct{}{}:
				default:
				}
			}()
			select {
			case <-ctx.Done():
				firstEnd.CompareAndSwap(nil, "ctx")
				return nil, ctx.Err()
			case <-time.After(time.Second):
				firstEnd.CompareAndSwap(nil, "timer")
				return nil, errors.New("this test's DNS server never answers")
			}
		}})
		errClosing := errors.New("the shop is closing")
		ctx, cancel := context.WithCancelCause(context.Background())
		defer cancel(nil)
		type dialed struct {
			feed *Feed
			err  error
		}
		done := make(chan dialed, 1)
		go func() {
			feed, err := DialFeed(ctx, "feed.test:4000")
			done <- dialed{feed, err}
		}()
		select {
		case <-entered:
		case d := <-done:
			assert.Fail(t, fmt.Sprintf("DialFeed(live ctx, feed.test:4000) returned (%v, %v) without looking the name up; want it to dial (task 3: a net.Dialer's DialContext)", d.feed, d.err))
			return
		case <-time.After(feedPatience):
			require.FailNow(t, "DialFeed(live ctx, feed.test:4000) did not look the name up within 2s (task 3: dial with a net.Dialer's DialContext)")
		}
		cancel(errClosing) // the dial is under way: its name lookup waits
		select {
		case d := <-done:
			if d.feed != nil {
				_ = d.feed.Close()
			}
			assert.ErrorIs(t, d.err, errClosing, "DialFeed(ctx cancelled with the cause %q during the dial)'s error (task 3: when the dial failed because ctx ended, wrap context.Cause(ctx))", errClosing)
		case <-time.After(feedPatience):
			assert.Fail(t, "DialFeed was still dialing 2s after its context was cancelled (task 3: net.Dial takes no context, a net.Dialer's DialContext does)")
			return
		}
		select {
		case <-ended:
			assert.Equal(t, "ctx", firstEnd.Load(), "DialFeed's name lookup went on after ctx was cancelled, until it gave up on its own; want the dial to end with ctx (task 3: net.Dial takes no context, a net.Dialer's DialContext does)")
		case <-time.After(feedPatience):
			assert.Fail(t, "DialFeed's name lookup was still waiting 2s after ctx was cancelled (task 3: net.Dial takes no context, a net.Dialer's DialContext does)")
		}
	})
}

// useResolver makes r the resolver of every dial in this test binary until
// t ends: net.Dial and a net.Dialer without a Resolver of its own both look
// names up with net.DefaultResolver.
func useResolver(t *testing.T, r *net.Resolver) {
	saved := net.DefaultResolver
	net.DefaultResolver = r
	t.Cleanup(func() { net.DefaultResolver = saved })
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
	errClosing := errors.New("the shop is closing")

	t.Run("cancel while waiting", func(t *testing.T) {
		feed, _ := connectFeed(t)
		ctx, cancel := context.WithCancelCause(context.Background())
		defer cancel(nil)
		time.AfterFunc(20*time.Millisecond, func() { cancel(errClosing) })
		_, err := nextWithin(t, feed, ctx)
		assert.ErrorIs(t, err, errClosing, "Next(ctx cancelled with the cause %q while it waited for a line)'s error (task 3: return context.Cause(ctx))", errClosing)
		assert.False(t, errors.Is(err, os.ErrDeadlineExceeded), "Next returned the read deadline's error (%v) after its context was cancelled; want the context's cause — the deadline is only how Next got unblocked (task 3: return context.Cause(ctx))", err)
	})

	t.Run("deadline while waiting", func(t *testing.T) {
		feed, _ := connectFeed(t)
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		defer cancel()
		_, err := nextWithin(t, feed, ctx)
		assert.ErrorIs(t, err, context.DeadlineExceeded, "Next(ctx that times out while it waits for a line)'s error (task 3: return context.Cause(ctx))")
		assert.False(t, errors.Is(err, os.ErrDeadlineExceeded), "Next returned the read deadline's error (%v) at its context's deadline; want context.DeadlineExceeded (task 3: return context.Cause(ctx))", err)
	})

	t.Run("reads on after cancel", func(t *testing.T) {
		feed, server := connectFeed(t)
		ctx, cancel := context.WithCancelCause(context.Background())
		defer cancel(nil)
		writeFeed(t, server, "pist") // half a line, then nothing
		time.AfterFunc(20*time.Millisecond, func() { cancel(errClosing) })
		_, err := nextWithin(t, feed, ctx)
		require.ErrorIs(t, err, errClosing, "Next(ctx cancelled while it waited for the rest of a line) (task 3: return context.Cause(ctx))")

		writeFeed(t, server, "achio 6437\n")
		got, err := nextWithin(t, feed, t.Context())
		assert.NoError(t, err, "Next(live ctx) after a Next whose context was cancelled; want the feed still readable (task 3: clear the read deadline before Next returns — SetReadDeadline(time.Time{}) — and keep the connection open)")
		assert.Equal(t, "pistachio 6437", got, "Next(live ctx) after a cancelled Next, on a feed that sent \"pist\" before the cancel and \"achio 6437\\n\" after (task 3: read with f.readLine, which keeps a line cut short)")
	})

	t.Run("nothing left behind", func(t *testing.T) {
		feed, server := connectFeed(t)
		first, cancelFirst := context.WithCancel(context.Background())
		defer cancelFirst()
		writeFeed(t, server, "pistachio 6437\n")
		got, err := nextWithin(t, feed, first)
		require.NoError(t, err, "Next(live ctx) with a line waiting (task 3)")
		require.Equal(t, "pistachio 6437", got, "Next(live ctx) with a line waiting (task 3)")

		// The second Next waits for a line; meanwhile the first Next's
		// context ends, long after that Next returned.
		time.AfterFunc(20*time.Millisecond, cancelFirst)
		time.AfterFunc(60*time.Millisecond, func() { _, _ = io.WriteString(server, "neopolitan 0\n") })
		got, err = nextWithin(t, feed, t.Context())
		assert.NoError(t, err, "a Next(live ctx) failed when the context of an earlier Next, which had already returned, was cancelled; want the earlier Next to leave nothing registered on its context (task 3: call the stop function that context.AfterFunc returned before Next returns)")
		assert.Equal(t, "neopolitan 0", got, "Next(live ctx) on a feed that sent \"neopolitan 0\\n\" (task 3)")
	})

	t.Run("ended context", func(t *testing.T) {
		feed, server := connectFeed(t)
		writeFeed(t, server, "pistachio 6437\n")
		time.Sleep(20 * time.Millisecond) // let the line reach this side
		ctx, cancel := context.WithCancelCause(context.Background())
		cancel(errClosing)
		got, err := nextWithin(t, feed, ctx)
		assert.ErrorIs(t, err, errClosing, "Next(ctx that had already ended, with a line waiting) returned %q, %v; want the context's cause (task 3: ask ctx.Err() first)", got, err)
		soon, cancelSoon := context.WithTimeout(context.Background(), 200*time.Millisecond)
		defer cancelSoon()
		got, err = nextWithin(t, feed, soon)
		assert.NoError(t, err, "Next(live ctx) after a Next whose context had already ended; want the line that one left unread (task 3: ask ctx.Err() before reading)")
		assert.Equal(t, "pistachio 6437", got, "Next(live ctx) after a Next whose context had already ended; want the line that one left unread (task 3: ask ctx.Err() before reading)")
	})
}
