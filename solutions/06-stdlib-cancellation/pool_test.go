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
		{
			name: "at most size", size: 2,
			jobs: []job{
				{name: "daily-1", weight: 1, takes: s}, {name: "daily-2", weight: 1, takes: s}, {name: "daily-3", weight: 1, takes: s},
				{name: "daily-4", weight: 1, takes: s}, {name: "daily-5", weight: 1, takes: s},
			},
			want: "daily-1 rendered at 0s, ok at 1s; daily-2 rendered at 0s, ok at 1s; daily-3 rendered at 1s, ok at 2s; " +
				"daily-4 rendered at 1s, ok at 2s; daily-5 rendered at 2s, ok at 3s; then ok at 0s",
			fix: "Acquire job.Weight of the semaphore, render, Release",
		},
		{
			name: "heavy job waits", size: 4,
			jobs: []job{{name: "year-end", weight: 3, takes: 10 * time.Minute}, {name: "weekly", weight: 2, leave: s}, {name: "monthly", weight: 2}},
			want: "year-end rendered at 0s, ok at 10m0s; weekly not rendered, the caller left at 1s; monthly rendered at 10m0s, ok at 10m0s; then ok at 0s",
			fix:  "Acquire(ctx, job.Weight) all at once, not 1, nor 1 at a time (a caller who leaves keeps them); no Release if it fails; no timeout of its own",
		},
		{
			name: "caller leaves in line", size: 1,
			jobs: []job{{name: "year-end", weight: 1, takes: 10 * s}, {name: "daily", weight: 1, leave: s}, {name: "weekly", weight: 1, leave: 2 * s}},
			want: "year-end rendered at 0s, ok at 10s; daily not rendered, the caller left at 1s; weekly not rendered, the caller left at 2s; then ok at 0s",
			fix:  "Acquire with the caller's ctx; if it fails, return context.Cause(ctx): no render, no Release (it gives back what others hold)",
		},
		{
			name: "render ends early", size: 3,
			jobs: []job{{name: "daily", weight: 2, takes: -1}, {name: "year-end", weight: 3, takes: 10 * s, leave: s}},
			want: "daily rendered at 0s, out of ink at 0s; year-end rendered at 0s, the caller left at 1s; then ok at 0s",
			fix:  "return render's error; render with the caller's ctx; defer Release after Acquire",
		},
		{
			name: "render panics", size: 1, jobs: []job{{name: "jammed", weight: 1, takes: -2}},
			want: "jammed rendered at 0s, panicked after 0s: paper jam; then ok at 0s",
			fix:  "defer Release right after Acquire: a render that panics gives its renderers back too",
		},
		{
			name: "bad weight", size: 2, jobs: []job{{name: "minus", weight: -1}, {name: "zero", weight: 0}},
			want: "minus not rendered, error at 0s; zero not rendered, error at 0s; then ok at 0s",
			fix:  "keep the weight check at the top of Render",
		},
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
					calls = append(calls, goCall(func() (struct{}, error) {
						return struct{}{}, pool.Render(leaving(t, j.leave), Job{Name: j.name, Weight: j.weight})
					}))
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
					return struct{}{}, pool.Render(leaving(t, time.Second), Job{Name: "check", Weight: tt.size})
				})
				c.await(time.Minute)
				if got := strings.Join(append(got, "then "+verdict(c, 0)), "; "); got != tt.want {
					t.Errorf("a pool of %d:%s\n\tfix: %s", tt.size, differ(got, tt.want), tt.fix)
				}
			})
		})
	}
}
