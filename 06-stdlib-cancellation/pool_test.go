package platform

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/icecreamcorp/go-cancellation-workshop/internal/leakcheck"
)

func TestPool(t *testing.T) {
	begun(t, "Pool.Render", func() error {
		return NewPool(1, func(context.Context, Job) error { return nil }).Render(context.Background(), Job{Name: "daily", Weight: 1})
	})
	leakcheck.Check(t)

	t.Run("at most size", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			r := newRenderer()
			pool := NewPool(2, r.render)
			var jobs []*bgCall[struct{}]
			for i := range 5 {
				r.takes[fmt.Sprintf("daily-%d", i+1)] = time.Second
				jobs = append(jobs, renderInBackground(t.Context(), pool, Job{Name: fmt.Sprintf("daily-%d", i+1), Weight: 1}))
				synctest.Wait() // each in line before the next one comes
			}
			for _, job := range jobs {
				job.await(time.Minute)
			}
			for i, job := range jobs {
				if !assert.NoError(t, job.err, "Render(daily-%d) (task 8: acquire, render, release)", i+1) {
					break // the others most likely say the same
				}
			}
			assert.ElementsMatch(t, []string{"daily-1", "daily-2", "daily-3", "daily-4", "daily-5"}, r.startedJobs(), "the jobs the pool rendered (task 8)")
			assert.Equal(t, int64(2), r.mostBusy(), "a pool of 2 renderers had %d busy at once at most; want 2 "+
				"(task 8: hold job.Weight of a semaphore.Weighted of size 2 while rendering)", r.mostBusy())
			assert.Equal(t, 3*time.Second, jobs[4].took,
				"Render(the 5th of five 1s jobs in a pool of 2) took %v; want 3s: two at a time, the next as soon as a renderer is free (task 8)", jobs[4].took)
		})
	})

	t.Run("heavy job waits", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			r := newRenderer()
			r.takes["year-end"] = 2 * time.Second
			pool := NewPool(4, r.render)
			yearEnd := renderInBackground(t.Context(), pool, Job{Name: "year-end", Weight: 3})
			synctest.Wait()
			weekly := renderInBackground(t.Context(), pool, Job{Name: "weekly", Weight: 2})
			weekly.await(time.Minute)
			yearEnd.await(time.Minute)
			assert.NoError(t, weekly.err, "Render(weekly, weight 2) (task 8)")
			assert.LessOrEqual(t, r.mostBusy(), int64(4), "a pool of 4 renderers had %d renderers' worth busy at once; want at most 4 "+
				"(task 8: a job holds job.Weight renderers, not 1: Acquire(ctx, job.Weight))", r.mostBusy())
			if at := r.startedAt("weekly"); at < 0 {
				assert.Fail(t, "the weekly report (weight 2) was never rendered; want it rendered at 2s, when the year-end report (weight 3 of 4) gave its renderers back (task 8)")
			} else {
				assert.Equal(t, 2*time.Second, at,
					"the weekly report (weight 2) started at %v; want 2s, when the year-end report (weight 3 of 4) gave its renderers back (task 8)", at)
			}
		})
	})

	t.Run("caller leaves in line", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			r := newRenderer()
			r.takes["year-end"] = 10 * time.Second
			pool := NewPool(1, r.render)
			yearEnd := renderInBackground(t.Context(), pool, Job{Name: "year-end", Weight: 1})
			synctest.Wait()

			errLeft := errors.New("the manager went home")
			ctx, leave := context.WithCancelCause(t.Context())
			daily := renderInBackground(ctx, pool, Job{Name: "daily", Weight: 1})
			time.Sleep(time.Second)
			leave(errLeft)
			synctest.Wait()
			if assert.True(t, daily.returned(), "Render(daily) %v while its caller left at 1s, the pool busy until 10s; want it to give up at once "+
				"(task 8: Acquire with the caller's ctx, never context.Background())", daily) {
				assert.ErrorIs(t, daily.err, errLeft, "Render(daily)'s error after its caller left with a reason "+
					"(task 8: Acquire's error is ctx.Err(); return the reason, context.Cause(ctx))")
			}

			// The pool is still full: the year-end report holds its one renderer.
			ctx, cancel := context.WithTimeout(t.Context(), time.Second)
			defer cancel()
			weekly := renderInBackground(ctx, pool, Job{Name: "weekly", Weight: 1})
			time.Sleep(time.Second)
			synctest.Wait()
			if assert.True(t, weekly.returned(), "Render(weekly, 1s deadline) %v, the pool busy until 10s; want it to give up at its deadline (task 8)", weekly) {
				assert.ErrorIs(t, weekly.err, context.DeadlineExceeded, "Render(weekly)'s error at its deadline, the pool busy (task 8)")
			}
			for _, name := range []string{"daily", "weekly"} {
				if at := r.startedAt(name); at >= 0 {
					assert.Fail(t, fmt.Sprintf("the %s report was rendered at %v, while the year-end report held the pool's only renderer; want it never rendered: "+
						"its caller gave up before a renderer came free (task 8: when Acquire fails, return: you hold no renderer, so render nothing and release nothing)", name, at))
				}
			}

			assert.Equal(t, int64(1), r.mostBusy(), "a pool of 1 renderer had %d busy at once; want 1 "+
				"(task 8: when Acquire fails, you hold nothing: release nothing and render nothing)", r.mostBusy())

			yearEnd.await(time.Minute)
			daily.await(time.Minute)
			weekly.await(time.Minute)
			assert.NoError(t, yearEnd.err, "Render(year-end) (task 8)")
			assertPoolFree(t, pool, 1)
		})
	})

	t.Run("render fails", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			r := newRenderer()
			errInk := errors.New("out of ink")
			r.fails["daily"] = errInk
			pool := NewPool(3, r.render)
			daily := renderInBackground(t.Context(), pool, Job{Name: "daily", Weight: 2})
			daily.await(time.Minute)
			assert.ErrorIs(t, daily.err, errInk, "Render(daily) when rendering failed: want render's error (task 8)")
			assertPoolFree(t, pool, 3)
		})
	})

	t.Run("caller leaves mid render", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			r := newRenderer()
			r.takes["year-end"] = 10 * time.Second
			pool := NewPool(3, r.render)
			ctx, leave := context.WithCancel(t.Context())
			yearEnd := renderInBackground(ctx, pool, Job{Name: "year-end", Weight: 3})
			time.Sleep(time.Second)
			leave()
			synctest.Wait()
			if assert.True(t, yearEnd.returned(), "Render(year-end) %v after its caller left at 1s; want it to return at once (task 8: render with the caller's ctx)", yearEnd) {
				assert.ErrorIs(t, yearEnd.err, context.Canceled, "Render(year-end) after its caller left during the rendering (task 8)")
			}
			yearEnd.await(time.Minute)
			assertPoolFree(t, pool, 3)
		})
	})

	t.Run("negative weight", func(t *testing.T) {
		r := newRenderer()
		err := NewPool(2, r.render).Render(t.Context(), Job{Name: "daily", Weight: -1})
		assert.Error(t, err, "Render(a job of weight -1); want an error, not the panic of Acquire(ctx, -1) (task 8: keep the weight check at the top of Render)")
		assert.Empty(t, r.startedJobs(), "the jobs rendered for a job of weight -1; want none (task 8: keep the weight check at the top of Render)")
	})
}

// assertPoolFree checks that a job of the pool's whole size is rendered at
// once: every renderer taken was given back.
func assertPoolFree(t *testing.T, pool *Pool, size int64) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), time.Second)
	defer cancel()
	check := renderInBackground(ctx, pool, Job{Name: "check", Weight: size})
	check.await(time.Minute)
	if check.panicked != nil && strings.Contains(fmt.Sprint(check.panicked), "released more than held") {
		assert.Fail(t, fmt.Sprintf("afterwards, nothing else running, Render(a job of the pool's whole size, %d) %v: "+
			"renderers were given back that were never taken (task 8: release only what a successful Acquire gave you; "+
			"when Acquire fails you hold nothing, so return without a Release)", size, check))
		return
	}
	assert.NoError(t, check.err, "afterwards, nothing else running, Render(a job of the pool's whole size, %d) %v; want it rendered at once: "+
		"a renderer was never given back (task 8: defer Release right after a successful Acquire, so that every way out gives them back)", size, check)
	assert.Zero(t, check.took, "afterwards, nothing else running, Render(a job of the pool's whole size, %d) %v; want it rendered at once (task 8)", size, check)
}

// renderInBackground calls pool.Render on a goroutine of its own.
func renderInBackground(ctx context.Context, pool *Pool, job Job) *bgCall[struct{}] {
	return goCall(func() (struct{}, error) { return struct{}{}, pool.Render(ctx, job) })
}

// renderer stands in for the work of rendering a report: it takes as long as
// the test says (no time at all unless told), gives up when its context
// ends, and records which jobs it started, when, and how many renderers were
// busy at once.
type renderer struct {
	takes map[string]time.Duration // by job name; set before the pool runs
	fails map[string]error         // by job name: fail at once with this

	mu      sync.Mutex
	start   time.Time
	started map[string]time.Duration // since the renderer was made
	order   []string
	busy    int64
	most    int64
}

func newRenderer() *renderer {
	return &renderer{takes: map[string]time.Duration{}, fails: map[string]error{}, start: time.Now(), started: map[string]time.Duration{}}
}

func (r *renderer) render(ctx context.Context, job Job) error {
	r.mu.Lock()
	r.started[job.Name] = time.Since(r.start)
	r.order = append(r.order, job.Name)
	r.busy += job.Weight
	r.most = max(r.most, r.busy)
	r.mu.Unlock()
	defer func() {
		r.mu.Lock()
		r.busy -= job.Weight
		r.mu.Unlock()
	}()
	if err := r.fails[job.Name]; err != nil {
		return err
	}
	timer := time.NewTimer(r.takes[job.Name])
	defer timer.Stop()
	select {
	case <-timer.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// startedJobs is the names of the jobs started so far, in order.
func (r *renderer) startedJobs() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.order...)
}

// startedAt is when the job started, or -1 if it never did.
func (r *renderer) startedAt(name string) time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	if at, ok := r.started[name]; ok {
		return at
	}
	return -1
}

// mostBusy is the largest weight of jobs the renderer worked on at once.
func (r *renderer) mostBusy() int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.most
}
