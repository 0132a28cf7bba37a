package platform

import (
	"context"
	"errors"
	"runtime"
	"slices"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/icecreamcorp/go-cancellation-workshop/internal/leakcheck"
)

func TestPoll(t *testing.T) {
	begun(t, "Poll", func() error { return Poll(ended(), time.Hour, func(context.Context) {}) })
	leakcheck.Check(t)
	s := time.Second
	for _, tc := range []struct {
		name    string
		every   time.Duration // Poll's interval
		end     time.Duration // when ctx ends, with want; 0: before Poll
		want    error         // errClosing: cancelled; context.DeadlineExceeded: a deadline
		takes   time.Duration // how long each poll takes, or until its ctx ends
		deaf    bool          // a poll that does not stop when its ctx ends
		polls   []time.Duration
		returns time.Duration // when Poll must return
		fix     string
	}{
		{"cancel mid wait", 5 * s, 12 * s, errClosing, 0, false, []time.Duration{0, 5 * s, 10 * s}, 12 * s,
			"poll at once, then wait in a select on a time.Ticker and ctx.Done()"},
		{"deadline", 3 * s, 7 * s, context.DeadlineExceeded, 0, false, []time.Duration{0, 3 * s, 6 * s}, 7 * s,
			"time.NewTicker(interval), the parameter; return context.Cause(ctx) once ctx.Done() is closed"},
		{"cancel mid poll", 5 * s, 6 * s, errClosing, 2 * s, false, []time.Duration{0, 5 * s}, 6 * s,
			"wait in a select on a time.Ticker and ctx.Done(), and pass ctx itself to poll"},
		{"slow poll", 5 * s, 16 * s, errClosing, 2 * s, true, []time.Duration{0, 5 * s, 10 * s, 15 * s}, 17 * s,
			"wait on a time.Ticker, which keeps its schedule while a poll runs, and call poll(ctx), not go poll(ctx)"},
		{"ended context", 5 * s, 0, errClosing, 0, false, nil, 0, "ask ctx.Err() before each poll"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				start := time.Now()
				ctx, cancel := context.WithCancelCause(context.Background())
				defer cancel(nil)
				switch {
				case tc.want == context.DeadlineExceeded:
					var stop context.CancelFunc
					ctx, stop = context.WithTimeout(ctx, tc.end)
					defer stop()
				case tc.end == 0:
					cancel(errClosing)
				default:
					time.AfterFunc(tc.end, func() { cancel(errClosing) })
				}
				var polls []time.Duration // read after synctest.Wait only
				var over atomic.Bool      // the test is over: end a Poll that polls on
				call := goCall(func() (struct{}, error) {
					return struct{}{}, Poll(ctx, tc.every, func(ctx context.Context) {
						if polls = append(polls, time.Since(start)); over.Load() || len(polls) > 9 {
							runtime.Goexit() // a Poll that never returns, or polls without end, would hang the bubble
						}
						if tc.deaf {
							time.Sleep(tc.takes)
							return
						}
						select {
						case <-ctx.Done():
						case <-time.After(tc.takes):
						}
					})
				})
				defer func() {
					over.Store(true)
					call.await(time.Hour)
					time.Sleep(time.Hour) // for polls that outlive Poll
				}()

				call.await(time.Minute)
				synctest.Wait()
				if !call.returned() || call.took != tc.returns || !slices.Equal(polls, tc.polls) {
					t.Fatalf("Poll(ctx, %v, poll) polled at %v and %v; want polls at %v, back after %v (%s)", tc.every, polls, call, tc.polls, tc.returns, tc.fix)
				}
				if !errors.Is(call.err, tc.want) {
					t.Errorf("Poll returned %v, want %v (return context.Cause(ctx))", call.err, tc.want)
				}
			})
		})
	}
}
