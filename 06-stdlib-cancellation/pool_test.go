package platform

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/icecreamcorp/go-cancellation-workshop/internal/leakcheck"
)

func TestPool(t *testing.T) {
	begun(t, "Pool.Render", func() error {
		return NewPool(1, func(context.Context, Job) error { return nil }).Render(context.Background(), Job{Name: "daily", Weight: 1})
	})
	leakcheck.Check(t)
	errInk, never := errors.New("out of ink"), time.Duration(-1)
	type job struct {
		name     string
		weight   int64
		takes    time.Duration // to render
		fails    error         // render fails at once with this
		leave    time.Duration // its caller leaves (with errLeft) this long after asking; 0: never
		at, back time.Duration // want: rendering starts at (never: not rendered), Render returns at
		err      error         // want: Render's error wraps this
	}
	daily := func(n int, at time.Duration) job {
		return job{name: fmt.Sprint("daily-", n), weight: 1, takes: time.Second, at: at, back: at + time.Second}
	}
	tests := []struct {
		name string
		size int64
		jobs []job // asked for in this order, all at 0s
		most int64 // want: most renderers busy at once
		fix  string
	}{
		{"at most size", 2, []job{daily(1, 0), daily(2, 0), daily(3, time.Second), daily(4, time.Second), daily(5, 2*time.Second)}, 2,
			"Acquire job.Weight of the semaphore, render, Release"},
		{"heavy job waits", 4, []job{
			{name: "year-end", weight: 3, takes: 2 * time.Second, back: 2 * time.Second},
			{name: "weekly", weight: 2, at: 2 * time.Second, back: 2 * time.Second},
		}, 3, "Acquire(ctx, job.Weight), not 1"},
		{"caller leaves in line", 1, []job{
			{name: "year-end", weight: 1, takes: 10 * time.Second, back: 10 * time.Second},
			{name: "daily", weight: 1, leave: time.Second, at: never, back: time.Second, err: errLeft},
			{name: "weekly", weight: 1, leave: 2 * time.Second, at: never, back: 2 * time.Second, err: errLeft},
		}, 1, "Acquire with the caller's ctx; if it fails, return context.Cause(ctx): no render, no Release"},
		{"render fails", 3, []job{{name: "daily", weight: 2, fails: errInk, err: errInk}}, 2,
			"return render's error; defer Release after Acquire"},
		{"caller leaves mid render", 3, []job{
			{name: "year-end", weight: 3, takes: 10 * time.Second, leave: time.Second, back: time.Second, err: context.DeadlineExceeded},
		}, 3, "render with the caller's ctx; defer Release"},
		{"bad weight", 2, []job{
			{name: "minus", weight: -1, at: never, err: errAny},
			{name: "zero", weight: 0, at: never, err: errAny},
		}, 0, "keep the weight check at the top of Render"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				jobs, start := map[string]job{}, time.Now()
				for _, j := range tt.jobs {
					jobs[j.name] = j
				}
				var mu sync.Mutex // guards started, busy and most
				started := map[string]time.Duration{}
				var busy, most int64
				pool := NewPool(tt.size, func(ctx context.Context, job Job) error {
					mu.Lock()
					started[job.Name], busy = time.Since(start), busy+job.Weight
					most = max(most, busy)
					mu.Unlock()
					defer func() { mu.Lock(); busy -= job.Weight; mu.Unlock() }()
					if err := jobs[job.Name].fails; err != nil {
						return err
					}
					select {
					case <-time.After(jobs[job.Name].takes):
						return nil
					case <-ctx.Done():
						return ctx.Err()
					}
				})
				var calls []*bgCall[struct{}]
				for _, j := range tt.jobs {
					ctx, cancel := t.Context(), context.CancelFunc(func() {})
					if j.leave > 0 {
						ctx, cancel = context.WithTimeoutCause(ctx, j.leave, errLeft)
					}
					defer cancel()
					calls = append(calls, goCall(func() (struct{}, error) { return struct{}{}, pool.Render(ctx, Job{Name: j.name, Weight: j.weight}) }))
					synctest.Wait() // in line before the next one comes
				}
				for i, j := range tt.jobs {
					c := calls[i]
					c.await(time.Minute)
					mu.Lock()
					at, ok := started[j.name]
					mu.Unlock()
					call := fmt.Sprintf("Render(%s, weight %d) in a pool of %d", j.name, j.weight, tt.size)
					if got, want := rendered(at, ok, c.took), rendered(j.at, j.at != never, j.back); !c.returned() || got != want {
						t.Errorf("%s: got %s (%v), want %s (%s)", call, got, c, want, tt.fix)
					}
					if c.panicked != nil || (j.err == nil) != (c.err == nil) || j.err != errAny && !errors.Is(c.err, j.err) {
						t.Errorf("%s: got error %v, want %v (%s)", call, c.err, j.err, tt.fix)
					}
				}
				mu.Lock()
				if most != tt.most {
					t.Errorf("a pool of %d: got %d renderers busy at once at most, want %d (%s)", tt.size, most, tt.most, tt.fix)
				}
				mu.Unlock()
				// Every renderer taken was given back: the whole pool renders at once.
				ctx, cancel := context.WithTimeout(t.Context(), time.Second)
				defer cancel()
				c := goCall(func() (struct{}, error) { return struct{}{}, pool.Render(ctx, Job{Name: "check", Weight: tt.size}) })
				if c.await(time.Minute); c.err != nil || c.took != 0 {
					t.Errorf("afterwards, Render(weight %d) in the idle pool %v; want it rendered at once (%s)", tt.size, c, tt.fix)
				}
			})
		})
	}
}

// rendered says when a job was rendered, if it was, and Render returned.
func rendered(at time.Duration, ok bool, back time.Duration) string {
	if !ok {
		return fmt.Sprintf("not rendered, back at %v", back)
	}
	return fmt.Sprintf("rendered at %v, back at %v", at, back)
}
