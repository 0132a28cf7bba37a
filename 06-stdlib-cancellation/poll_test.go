package platform

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/icecreamcorp/go-cancellation-workshop/internal/leakcheck"
	"github.com/stretchr/testify/assert"
)

func TestPoll(t *testing.T) {
	begun(t, "Poll", func() error { return Poll(ended(), time.Hour, func(context.Context) {}) })
	leakcheck.Check(t)
	errClosing := errors.New("the shop is closing")

	t.Run("cancel mid wait", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			ctx, cancel := context.WithCancelCause(context.Background())
			defer cancel(nil)
			run := startPoll(ctx, 5*time.Second, nil)
			defer run.finish(t)

			time.Sleep(12 * time.Second)
			cancel(errClosing)
			synctest.Wait()
			assert.Equal(t, []time.Duration{0, 5 * time.Second, 10 * time.Second}, run.pollTimes(),
				"Poll(ctx, 5s, poll) started polls at these times by 12s; want at once, then every 5s (task 1: poll at once, then on each tick of a time.Ticker)")
			if !run.returned() {
				assert.Fail(t, "Poll(ctx, 5s, poll) was still running after its context was cancelled at 12s; want it to return at once (task 1: wait in a select on the ticker and ctx.Done() — time.Sleep cannot be interrupted, and asking ctx.Err() after it is too late)")
				return
			}
			assert.ErrorIs(t, run.err, errClosing,
				"Poll's error after its context was cancelled with the cause %q; want that cause (task 1: return context.Cause(ctx), not nil or ctx.Err())", errClosing)
		})
	})

	t.Run("deadline", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 7*time.Second)
			defer cancel()
			run := startPoll(ctx, 5*time.Second, nil)
			defer run.finish(t)

			time.Sleep(7*time.Second - time.Nanosecond)
			synctest.Wait()
			if run.returned() {
				assert.Fail(t, fmt.Sprintf("Poll(ctx with a 7s deadline, 5s, poll) had already returned (with %q) at 7s-1ns; want it polling until the deadline (task 1: return only when ctx ends)", run.err))
				return
			}
			time.Sleep(time.Nanosecond)
			synctest.Wait()
			if !run.returned() {
				assert.Fail(t, "Poll(ctx with a 7s deadline, 5s, poll) was still running at the deadline, 7s; want it to return at once (task 1: wait in a select on the ticker and ctx.Done(), not time.Sleep)")
				return
			}
			assert.ErrorIs(t, run.err, context.DeadlineExceeded,
				"Poll's error at its context's deadline (task 1: return context.Cause(ctx), which is context.DeadlineExceeded here)")
			assert.Equal(t, []time.Duration{0, 5 * time.Second}, run.pollTimes(),
				"Poll(ctx with a 7s deadline, 5s, poll) started polls at these times (task 1: poll at once, then on each tick)")
		})
	})

	t.Run("slow poll", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			run := startPoll(ctx, 5*time.Second, func(context.Context, int) { time.Sleep(2 * time.Second) })
			defer run.finish(t)

			time.Sleep(16 * time.Second)
			cancel()
			synctest.Wait()
			assert.Equal(t, []time.Duration{0, 5 * time.Second, 10 * time.Second, 15 * time.Second}, run.pollTimes(),
				"Poll(ctx, 5s, poll taking 2s) started polls at these times by 16s; want every 5s, a slow poll must not push the next one back (task 1: a time.Ticker keeps its schedule; time.After or time.Sleep after each poll drifts)")
		})
	})

	t.Run("poll gets ctx", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			ctx, cancel := context.WithCancelCause(context.Background())
			defer cancel(nil)
			secondPoll := make(chan bool, 1) // whether the second poll saw its context end
			run := startPoll(ctx, 5*time.Second, func(ctx context.Context, n int) {
				if n != 2 {
					return
				}
				select {
				case <-ctx.Done():
					secondPoll <- true
				case <-time.After(time.Hour):
					secondPoll <- false
				}
			})
			defer run.finish(t)

			time.Sleep(6 * time.Second)
			cancel(errClosing)
			synctest.Wait()
			if !run.returned() {
				assert.Fail(t, "Poll was still running after its context was cancelled at 6s, in the middle of the poll that started at 5s; want the context that poll was given to end with Poll's, so that it stops, and Poll to return (task 1: pass ctx itself to poll, not context.Background(), and wait in a select beside ctx.Done())")
			}
			select {
			case ended := <-secondPoll:
				assert.True(t, ended, "the poll that started at 5s waited an hour; want its context to end when Poll's was cancelled at 6s (task 1: pass ctx to poll)")
			case <-time.After(2 * time.Hour):
				assert.Fail(t, "Poll(ctx, 5s, poll) never started a second poll; want one at 5s (task 1: poll at once, then on each tick of a time.Ticker)")
			}
		})
	})

	t.Run("ended context", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			ctx, cancel := context.WithCancelCause(context.Background())
			cancel(errClosing)
			run := startPoll(ctx, 5*time.Second, nil)
			defer run.finish(t)

			synctest.Wait()
			assert.Empty(t, run.pollTimes(),
				"Poll(ctx that had already ended, 5s, poll) polled; want no poll: nobody is waiting for the stock levels (task 1: ask ctx.Err() before each poll)")
			if assert.True(t, run.returned(), "Poll(ctx that had already ended, 5s, poll) did not return at once (task 1: ask ctx.Err() before each poll)") {
				assert.ErrorIs(t, run.err, errClosing, "Poll's error for a context that had already ended with the cause %q (task 1: return context.Cause(ctx))", errClosing)
			}
		})
	})

	t.Run("zero interval", func(t *testing.T) {
		polled := false
		err := Poll(t.Context(), 0, func(context.Context) { polled = true })
		assert.Error(t, err, "Poll(ctx, 0, poll); want an error, not a panic in time.NewTicker (task 1: keep the interval check at the top of Poll)")
		assert.False(t, polled, "Poll(ctx, 0, poll) polled; want no poll (task 1: keep the interval check at the top of Poll)")
	})
}

// pollRun is a call to Poll running in a goroutine of its own, inside a
// synctest bubble, with a poll function that records when it was called.
type pollRun struct {
	start  time.Time
	done   chan struct{} // closed when Poll has returned
	exited chan struct{} // closed when Poll's goroutine has ended
	err    error         // what Poll returned; read it only once done is closed

	mu      sync.Mutex
	polls   []time.Duration // when each poll started, since start
	running int             // polls started and not yet returned
	left    int             // polls still running when Poll returned
	stopped bool            // set by finish: the next poll ends Poll's goroutine
}

// startPoll calls Poll(ctx, interval, …) in a new goroutine. Each poll is
// recorded, then calls each (if not nil) with the poll's context and its
// number, counting from 1.
func startPoll(ctx context.Context, interval time.Duration, each func(ctx context.Context, n int)) *pollRun {
	r := &pollRun{start: time.Now(), done: make(chan struct{}), exited: make(chan struct{})}
	poll := func(ctx context.Context) {
		r.mu.Lock()
		if r.stopped {
			r.mu.Unlock()
			// A Poll that never returns would keep this bubble running
			// forever, and the test would hang instead of reporting. The
			// test has judged it already: end its goroutine here.
			runtime.Goexit()
		}
		r.polls = append(r.polls, time.Since(r.start))
		n := len(r.polls)
		r.running++
		r.mu.Unlock()
		defer func() {
			r.mu.Lock()
			r.running--
			r.mu.Unlock()
		}()
		if each != nil {
			each(ctx, n)
		}
	}
	go func() {
		defer close(r.exited)
		r.err = Poll(ctx, interval, poll)
		r.mu.Lock()
		r.left = r.running
		r.mu.Unlock()
		close(r.done)
	}()
	return r
}

// pollTimes is when each poll started so far, since Poll was called.
func (r *pollRun) pollTimes() []time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]time.Duration(nil), r.polls...)
}

// returned reports, without waiting, whether Poll has returned. Call
// synctest.Wait first, so that Poll has run as far as it can.
func (r *pollRun) returned() bool {
	select {
	case <-r.done:
		return true
	default:
		return false
	}
}

// finish ends the test's Poll: a Poll that has not returned yet is stopped
// at its next poll. It waits at most an hour of the bubble's virtual time,
// for Poll and for the polls it started: a bubble cannot end while one of
// its goroutines still runs.
func (r *pollRun) finish(t *testing.T) {
	t.Helper()
	r.mu.Lock()
	r.stopped = true
	r.mu.Unlock()
	select {
	case <-r.exited:
	case <-time.After(time.Hour):
		assert.Fail(t, "Poll was still running an hour after the test ended its context, and did not poll again; want it to return when its context ends (task 1: select on ctx.Done() beside the ticker)")
	}
	r.mu.Lock()
	left := r.left
	r.mu.Unlock()
	if left > 0 {
		assert.Fail(t, fmt.Sprintf("Poll returned while %d poll(s) it had started were still running; want each poll to have returned before the next wait, and before Poll returns "+
			"(task 1: call poll(ctx) and wait for it — go poll(ctx) leaves polls running for nobody; the ticker alone keeps the schedule)", left))
	}
	for deadline := time.Now().Add(time.Hour); time.Now().Before(deadline); time.Sleep(time.Second) {
		r.mu.Lock()
		running := r.running
		r.mu.Unlock()
		if running == 0 {
			return
		}
	}
}
