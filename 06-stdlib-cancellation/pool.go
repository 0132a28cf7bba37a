package platform

import (
	"context"

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
// ctx ended (context.Cause). Otherwise it returns render's error.
func (p *Pool) Render(ctx context.Context, job Job) error {
	// TODO(task 8): take job.Weight renderers (p.renderers.Acquire), waiting
	// no longer than the caller does; if the caller leaves first, return the
	// reason it gave (context.Cause). Then render the job with p.render, and
	// give the renderers back (Release) whichever way the rendering ends.
	return errNotImplemented
}
