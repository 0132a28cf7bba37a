package platform

import (
	"context"
	"fmt"

	"golang.org/x/sync/semaphore"
)

// Job is one report to render. Weight is how many of the pool's renderers
// it needs at once: the year-end report takes more than a daily one.
type Job struct {
	Name   string
	Weight int64
}

// Pool renders reports, at most size renderers' worth at a time, like a
// worker pool that hands each task to the next free worker.
type Pool struct {
	renderers *semaphore.Weighted
	render    func(ctx context.Context, job Job) error
}

// NewPool returns a pool of size renderers that renders a job by calling
// render.
func NewPool(size int64, render func(ctx context.Context, job Job) error) *Pool {
	return &Pool{renderers: semaphore.NewWeighted(size), render: render}
}

// Render waits until job.Weight renderers are free, for as long as ctx
// lasts, then renders job with them and gives them back. If ctx ends while
// it waits, Render gives up at once, renders nothing, and returns the reason
// ctx ended (context.Cause). Otherwise it returns render's error. A weight
// below 1 is an error; a job that weighs more than the pool has renderers
// waits until ctx ends.
func (p *Pool) Render(ctx context.Context, job Job) error {
	// Acquire panics on a negative weight, and a weight of 0 would render
	// on no renderer at all, beyond the pool's size.
	if job.Weight < 1 {
		return fmt.Errorf("render %s: a weight of %d; want 1 or more", job.Name, job.Weight)
	}
	// Acquire waits in line, and leaves the line the moment ctx ends. With
	// context.Background() here, a caller who has left would keep its
	// place, and its report would be rendered for nobody once its turn came.
	if err := p.renderers.Acquire(ctx, job.Weight); err != nil {
		// Acquire failed and took nothing: there is nothing to give back.
		// A Release here would give back renderers that others hold, and
		// usually silently: the pool then hands out more renderers than it
		// has. It panics ("semaphore: released more than held") only when
		// the count would go below zero. And never go on to render: we hold
		// no renderer.
		//
		// Acquire's error is ctx.Err(), which only says Canceled or
		// DeadlineExceeded; the reason the caller gave is in context.Cause.
		return fmt.Errorf("render %s: waiting for a renderer: %w", job.Name, context.Cause(ctx))
	}
	// Give the renderers back on every way out, failure and cancellation
	// included: a Release written after render would be skipped by an early
	// return, and each skipped one shrinks the pool for good.
	defer p.renderers.Release(job.Weight)
	return p.render(ctx, job)
}
