package platform

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/icecreamcorp/go-cancellation-workshop/internal/leakcheck"
)

var errInk = errors.New("out of ink")

func TestPool(t *testing.T) {
	begun(t, "Pool.Render", func() error { return NewPool(1, nil).Render(context.Background(), Job{Name: "daily", Weight: 1}) })
	leakcheck.Check(t)
	type job struct {
		name         string
		weight       int64
		takes, leave time.Duration // rendering takes (-1: fails at once with errInk, -2: panics); its caller leaves after (0: never)
	}
	s := time.Second
	tests := []struct {
		name string
		size int64
		jobs []job  // asked for in this order, all at 0s
		want string // each job's rendering and Render's verdict; then that of the whole pool's job
		fix  string
	}{
		{"at most size", 2, []job{{"daily-1", 1, s, 0}, {"daily-2", 1, s, 0}, {"daily-3", 1, s, 0}, {"daily-4", 1, s, 0}, {"daily-5", 1, s, 0}},
			"daily-1 rendered at 0s, ok at 1s; daily-2 rendered at 0s, ok at 1s; daily-3 rendered at 1s, ok at 2s; " +
				"daily-4 rendered at 1s, ok at 2s; daily-5 rendered at 2s, ok at 3s; then ok at 0s",
			"Acquire job.Weight of the semaphore, render, Release"},
		{"heavy job waits", 4, []job{{"year-end", 3, 10 * time.Minute, 0}, {"weekly", 2, 0, s}, {"monthly", 2, 0, 0}},
			"year-end rendered at 0s, ok at 10m0s; weekly not rendered, the caller left at 1s; monthly rendered at 10m0s, ok at 10m0s; then ok at 0s",
			"Acquire(ctx, job.Weight) all at once, not 1, nor 1 at a time (a caller who leaves keeps them); no timeout of its own"},
		{"caller leaves in line", 1, []job{{"year-end", 1, 10 * s, 0}, {"daily", 1, 0, s}, {"weekly", 1, 0, 2 * s}},
			"year-end rendered at 0s, ok at 10s; daily not rendered, the caller left at 1s; weekly not rendered, the caller left at 2s; then ok at 0s",
			"Acquire with the caller's ctx; if it fails, return context.Cause(ctx): no render, no Release"},
		{"render ends early", 3, []job{{"daily", 2, -1, 0}, {"year-end", 3, 10 * s, s}},
			"daily rendered at 0s, out of ink at 0s; year-end rendered at 0s, the caller left at 1s; then ok at 0s",
			"return render's error; render with the caller's ctx; defer Release after Acquire"},
		{"render panics", 1, []job{{"jammed", 1, -2, 0}}, "jammed rendered at 0s, panicked after 0s: paper jam; then ok at 0s",
			"defer Release right after Acquire: a render that panics gives its renderers back too"},
		{"bad weight", 2, []job{{"minus", -1, 0, 0}, {"zero", 0, 0, 0}}, "minus not rendered, error at 0s; zero not rendered, error at 0s; then ok at 0s",
			"keep the weight check at the top of Render"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				mu, started, takes, start := new(sync.Mutex), map[string]string{}, map[string]time.Duration{}, time.Now() // mu guards started
				for _, j := range tt.jobs {
					takes[j.name] = j.takes
				}
				pool := NewPool(tt.size, func(ctx context.Context, job Job) error {
					mu.Lock()
					started[job.Name] = "rendered at " + time.Since(start).String()
					mu.Unlock()
					switch takes[job.Name] {
					case -1:
						return errInk
					case -2:
						panic("paper jam")
					}
					select {
					case <-time.After(takes[job.Name]):
						return nil
					case <-ctx.Done():
						return context.Cause(ctx)
					}
				})
				var calls []*bgCall[struct{}]
				for _, j := range tt.jobs {
					calls = append(calls, goCall(func() (struct{}, error) { return struct{}{}, pool.Render(leaving(t, j.leave), Job{j.name, j.weight}) }))
					synctest.Wait() // in line before the next one comes
				}
				var got []string
				for i, j := range tt.jobs {
					calls[i].await(time.Hour)
					mu.Lock()
					got = append(got, fmt.Sprintf("%s %s, %s", j.name, cmp.Or(started[j.name], "not rendered"), verdict(calls[i], 0)))
					mu.Unlock()
				}
				// Every renderer taken was given back: the whole pool renders at once.
				c := goCall(func() (struct{}, error) {
					return struct{}{}, pool.Render(leaving(t, time.Second), Job{"check", tt.size})
				})
				c.await(time.Minute)
				if got := strings.Join(append(got, "then "+verdict(c, 0)), "; "); got != tt.want {
					t.Errorf("a pool of %d:%s\n\tfix: %s", tt.size, differ(got, tt.want), tt.fix)
				}
			})
		})
	}
}
