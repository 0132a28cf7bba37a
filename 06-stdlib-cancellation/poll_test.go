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
		{name: "cancel mid wait", every: 5 * s, end: 12 * s, want: errClosing, polls: []time.Duration{0, 5 * s, 10 * s}, returns: 12 * s,
			fix: "poll at once, then wait in a select on a time.Ticker and ctx.Done()"},
		{name: "deadline", every: 3 * s, end: 7 * s, want: context.DeadlineExceeded, polls: []time.Duration{0, 3 * s, 6 * s}, returns: 7 * s,
			fix: "time.NewTicker(interval), the parameter; return context.Cause(ctx) once ctx.Done() is closed"},
		{name: "cancel mid poll", every: 5 * s, end: 6 * s, want: errClosing, takes: 2 * s, polls: []time.Duration{0, 5 * s}, returns: 6 * s,
			fix: "wait in a select on a time.Ticker and ctx.Done(), and pass ctx itself to poll"},
		{name: "slow poll", every: 5 * s, end: 16 * s, want: errClosing, takes: 2 * s, deaf: true, polls: []time.Duration{0, 5 * s, 10 * s, 15 * s}, returns: 17 * s,
			fix: "wait on a time.Ticker, which keeps its schedule while a poll runs, and call poll(ctx), not go poll(ctx)"},
		{name: "ended context", every: 5 * s, end: 0, want: errClosing, fix: "ask ctx.Err() before each poll"},
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
