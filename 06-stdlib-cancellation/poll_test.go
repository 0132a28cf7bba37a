package platform

import (
	"context"
	"errors"
	"runtime"
	"slices"
	"sync"
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
		name     string
		end      time.Duration // when ctx ends: cancelled with errClosing, or its deadline; 0: before Poll
		deadline bool
		takes    time.Duration // how long each poll takes, or until its ctx ends
		deaf     bool          // a poll that does not stop when its ctx ends
		polls    []time.Duration
		returns  time.Duration // when Poll must return
		fix      string
	}{
		{"cancel mid wait", 12 * s, false, 0, false, []time.Duration{0, 5 * s, 10 * s}, 12 * s,
			"poll at once, then wait in a select on a time.Ticker and ctx.Done()"},
		{"deadline", 7 * s, true, 0, false, []time.Duration{0, 5 * s}, 7 * s,
			"return context.Cause(ctx) when ctx.Done() is closed"},
		{"cancel mid poll", 6 * s, false, 2 * s, false, []time.Duration{0, 5 * s}, 6 * s,
			"wait in a select on a time.Ticker and ctx.Done(), and pass ctx itself to poll"},
		{"slow poll", 16 * s, false, 2 * s, true, []time.Duration{0, 5 * s, 10 * s, 15 * s}, 17 * s,
			"wait on a time.Ticker, which keeps its schedule while a poll runs, and call poll(ctx), not go poll(ctx)"},
		{"ended context", 0, false, 0, false, nil, 0,
			"ask ctx.Err() before each poll"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				start := time.Now()
				ctx, cancel := context.WithCancelCause(context.Background())
				defer cancel(nil)
				want := error(errClosing)
				if tc.deadline {
					var stop context.CancelFunc
					ctx, stop = context.WithTimeout(ctx, tc.end)
					defer stop()
					want = context.DeadlineExceeded
				} else if tc.end == 0 {
					cancel(errClosing)
				} else {
					time.AfterFunc(tc.end, func() { cancel(errClosing) })
				}
				var mu sync.Mutex
				var polls []time.Duration
				stopped := false // the test is over: end a Poll that polls on
				call := goCall(func() (struct{}, error) {
					return struct{}{}, Poll(ctx, 5*time.Second, func(ctx context.Context) {
						mu.Lock()
						polls = append(polls, time.Since(start))
						over := stopped
						mu.Unlock()
						if over {
							runtime.Goexit() // a Poll that never returns would hang the bubble
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
					mu.Lock()
					stopped = true
					mu.Unlock()
					call.await(time.Hour)
					time.Sleep(time.Hour) // for polls that outlive Poll
				}()

				if tc.returns > 0 {
					time.Sleep(tc.returns - time.Nanosecond)
					synctest.Wait()
					if call.returned() {
						t.Fatalf("Poll %v, want still polling at %v (%s)", call, tc.returns-time.Nanosecond, tc.fix)
					}
				}
				time.Sleep(time.Nanosecond)
				synctest.Wait()
				mu.Lock()
				got := slices.Clone(polls)
				mu.Unlock()
				if !slices.Equal(got, tc.polls) {
					t.Errorf("Poll(ctx, 5s, poll) polled at %v, want %v (%s)", got, tc.polls, tc.fix)
				}
				if !call.returned() {
					t.Fatalf("Poll %v, want it returned at %v (%s)", call, tc.returns, tc.fix)
				}
				if !errors.Is(call.err, want) {
					t.Errorf("Poll returned %v, want %v (return context.Cause(ctx))", call.err, want)
				}
			})
		})
	}

	t.Run("zero interval", func(t *testing.T) {
		polled := false
		if err := Poll(t.Context(), 0, func(context.Context) { polled = true }); err == nil || polled {
			t.Errorf("Poll(ctx, 0, poll) = %v, polled %v; want an error and no poll (keep the interval check)", err, polled)
		}
	})
}
