package platform

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/icecreamcorp/go-cancellation-workshop/internal/fakestock"
	"github.com/icecreamcorp/go-cancellation-workshop/internal/leakcheck"
)

// sharedTimeout is the bound the tests give every shared request.
const sharedTimeout = 5 * time.Second

func TestShared(t *testing.T) {
	leakcheck.Check(t)

	t.Run("callers share", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			up := newUpstream(t, fakestock.Reply{Delay: 3 * time.Second})
			var callers []*bgCall[Levels]
			for range 3 {
				callers = append(callers, goCall(func() (Levels, error) { return up.shared.Levels(t.Context()) }))
			}
			time.Sleep(time.Second)
			callers = append(callers, goCall(func() (Levels, error) { return up.shared.Levels(t.Context()) }))
			for _, c := range callers {
				c.await(time.Minute)
			}
			for i, c := range callers {
				if assert.NoError(t, c.err, "caller %d of Levels (task 9)", i+1) {
					assert.Equal(t, wantLevels(), c.got, "caller %d of Levels: the stock service's levels (task 9)", i+1)
				}
			}
			if callers[0].err == nil && callers[1].err == nil {
				callers[0].got[fakestock.Flavours[0].Name] = -1 // the first caller changes its levels
				assert.Equal(t, wantLevels(), callers[1].got, "the second caller's levels after the first caller changed its own; want them untouched "+
					"(task 9: every caller gets the shared call's one map — hand each a copy of its own, maps.Clone)")
			}
			assert.Equal(t, 1, up.fake.Started(), "the stock service got %d requests from 4 callers asking within 1s of each other; want 1, shared by all "+
				"(task 9: singleflight.Group.DoChan, one group for every call, the same key)", up.fake.Started())
			assert.Equal(t, 2*time.Second, callers[3].took,
				"Levels for a caller who came at 1s, while the request was under way, %v; want the shared answer 2s later, at 3s (task 9)", callers[3])
		})
	})

	t.Run("caller leaves", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			up := newUpstream(t, fakestock.Reply{Delay: 3 * time.Second})
			errImpatient := errors.New("the manager would not wait")
			ctx, cancel := context.WithTimeoutCause(t.Context(), time.Second, errImpatient)
			defer cancel()
			impatient := goCall(func() (Levels, error) { return up.shared.Levels(ctx) })
			synctest.Wait() // the impatient caller starts the request
			var patient []*bgCall[Levels]
			for range 2 {
				patient = append(patient, goCall(func() (Levels, error) { return up.shared.Levels(t.Context()) }))
			}

			time.Sleep(time.Second)
			synctest.Wait()
			if assert.True(t, impatient.returned(), "Levels for a caller with a 1s deadline %v; want it to leave at its deadline "+
				"(task 9: Do cannot be left; use DoChan and select on its channel and ctx.Done())", impatient) {
				assert.ErrorIs(t, impatient.err, errImpatient, "Levels' error for a caller who left at its 1s deadline, set with the cause %q; want that cause: ctx.Err() says only \"deadline exceeded\" (task 9: return context.Cause(ctx))", errImpatient)
			}
			fix := "task 9: run the shared call under context.WithoutCancel(ctx), not under the context of whichever caller happened to start it"
			for _, c := range patient {
				if c.returned() && errors.Is(c.err, context.Canceled) {
					fix = "task 9: the shared call's context was cancelled when the caller who started it left — a cancel that runs when that caller's Levels returns " +
						"(defer cancel() in Levels) ends the call for everyone: create the call's context inside the function given to DoChan, and defer its cancel there"
				}
			}
			for i, c := range patient {
				assert.False(t, c.returned(), "Levels for patient caller %d %v, when the caller who started the request left at 1s; "+
					"want it still waiting for the answer due at 3s (%s)", i+1, c, fix)
			}
			assert.Empty(t, up.fake.Calls(), "the stock service, when the caller who started the request left at 1s: %v; "+
				"want the request still running for the others (%s)", up.fake.Calls(), fix)
			late := goCall(func() (Levels, error) { return up.shared.Levels(t.Context()) })

			time.Sleep(2 * time.Second)
			synctest.Wait()
			if assert.True(t, late.returned(), "Levels for a caller who came at 1s, after the impatient one left, %v; want it to join the request under way and get its answer at 3s "+
				"(task 9: a caller who leaves only stops waiting — no Forget, and no new request)", late) {
				assert.NoError(t, late.err, "Levels for a caller who came at 1s (task 9)")
			}
			for i, c := range patient {
				if assert.True(t, c.returned(), "Levels for patient caller %d %v; want the answer at 3s (task 9)", i+1, c) {
					assert.NoError(t, c.err, "Levels for patient caller %d (task 9)", i+1)
					assert.Equal(t, wantLevels(), c.got, "Levels for patient caller %d (task 9)", i+1)
				}
			}
			if calls := up.fake.Calls(); assert.Len(t, calls, 1, "the stock service's requests by 3s: want one, shared by the four callers (task 9)") {
				assert.Equal(t, fakestock.Completed, calls[0].Outcome, "the shared request: %v; want it completed at 3s (task 9)", calls[0])
			}
			impatient.await(time.Hour)
			for _, c := range append(patient, late) {
				c.await(time.Hour)
			}
		})
	})

	t.Run("ended context", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			up := newUpstream(t, fakestock.Reply{})
			errLeft := errors.New("the customer closed the app")
			ctx, leave := context.WithCancelCause(t.Context())
			leave(errLeft)
			_, err := up.shared.Levels(ctx)
			assert.ErrorIs(t, err, errLeft, "Levels for a caller who had already left with the cause %q (task 9: return context.Cause(ctx))", errLeft)
			synctest.Wait()
			assert.Empty(t, up.seen(), "requests sent for a caller who had already left; want none: the shared call would run for nobody (task 9: look at ctx.Err() before DoChan)")
		})
	})

	t.Run("values and deadline", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			up := newUpstream(t, fakestock.Reply{Delay: 3 * time.Second})
			ctx, cancel := context.WithTimeout(context.WithValue(t.Context(), traceKey{}, "trace-42"), time.Second)
			defer cancel()
			first := goCall(func() (Levels, error) { return up.shared.Levels(ctx) })
			synctest.Wait()
			seen := up.seen()
			if assert.Len(t, seen, 1, "requests sent to the stock service (task 9)") {
				assert.Equal(t, "trace-42", seen[0].trace, "the trace id on the shared request's context; want the one of the caller who started it "+
					"(task 9: derive the shared call's context from that caller's with context.WithoutCancel, which keeps its values; context.Background() drops them)")
				if !seen[0].hasDeadline {
					assert.Fail(t, fmt.Sprintf("the shared request's context had no deadline; want the SharedStock's own timeout, %v (task 9: context.WithTimeout)", sharedTimeout))
				} else {
					assert.Equal(t, sharedTimeout, seen[0].deadline, "the shared request's deadline, from its start; want the SharedStock's own timeout, "+
						"not the 1s of the caller who started it (task 9: context.WithoutCancel drops that caller's deadline; then add your own with context.WithTimeout)")
				}
			}
			first.await(time.Hour)
			up.fake.Await(t, 1, time.Hour)
		})
	})

	t.Run("upstream hangs", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			up := newUpstream(t, fakestock.Reply{Delay: time.Hour})
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			var callers []*bgCall[Levels]
			for range 2 {
				callers = append(callers, goCall(func() (Levels, error) { return up.shared.Levels(ctx) }))
			}
			time.Sleep(sharedTimeout - time.Nanosecond)
			synctest.Wait()
			for i, c := range callers {
				assert.False(t, c.returned(), "Levels for caller %d %v; want it waiting until the shared request's own %v timeout (task 9)", i+1, c, sharedTimeout)
			}
			time.Sleep(time.Nanosecond)
			synctest.Wait()
			for i, c := range callers {
				if assert.True(t, c.returned(), "Levels for caller %d %v, the stock service hanging; want it to fail at the shared request's own %v timeout "+
					"(task 9: the shared call needs a bound of its own, context.WithTimeout: context.WithoutCancel drops the caller's deadline, and context.Background() never had one)", i+1, c, sharedTimeout) {
					assert.ErrorIs(t, c.err, context.DeadlineExceeded, "Levels' error for caller %d when the shared request timed out (task 9)", i+1)
				}
			}
			if calls := up.fake.Calls(); assert.Len(t, calls, 1, "the stock service's requests at %v (task 9: context.WithTimeout)", sharedTimeout) {
				assert.Equal(t, fakestock.Abandoned, calls[0].Outcome, "the shared request: %v; want it abandoned at the timeout (task 9)", calls[0])
			}
			cancel() // a wrong answer's callers may still be waiting
			for _, c := range callers {
				c.await(2 * time.Hour)
			}
		})
	})

	t.Run("asks again after error", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			up := newUpstream(t, fakestock.Reply{Delay: time.Second, Status: http.StatusServiceUnavailable, Body: `{"error":"busy"}`}, fakestock.Reply{Delay: time.Second})
			first := goCall(func() (Levels, error) { return up.shared.Levels(t.Context()) })
			first.await(time.Minute)
			assert.Error(t, first.err, "Levels when the stock service answered 503 (task 9: return the shared call's error)")
			second := goCall(func() (Levels, error) { return up.shared.Levels(t.Context()) })
			second.await(time.Minute)
			if assert.NoError(t, second.err, "Levels after the stock service failed once and came back: want a new request, not the old error (task 9)") {
				assert.Equal(t, wantLevels(), second.got, "Levels after the stock service came back (task 9)")
			}
			assert.Equal(t, 2, up.fake.Started(), "requests the stock service got: one that failed, then one for the next caller (task 9)")
		})
	})
}

// traceKey is the context key of a trace id, a value that travels with a
// request through every call it makes.
type traceKey struct{}

// upstream is a fake stock service behind a SharedStock, with a record of
// the requests the SharedStock sent.
type upstream struct {
	fake   *fakestock.Service
	shared *SharedStock

	mu       sync.Mutex
	requests []sentRequest
}

// sentRequest is what the client side saw of a request's context.
type sentRequest struct {
	trace       any           // the traceKey value
	hasDeadline bool          //
	deadline    time.Duration // from when the request was sent
}

// newUpstream starts a fake stock service that plays replies, and a
// SharedStock that asks it with a timeout of sharedTimeout. Call it inside
// the synctest bubble that uses it.
func newUpstream(t testing.TB, replies ...fakestock.Reply) *upstream {
	t.Helper()
	up := &upstream{fake: fakestock.New(replies...)}
	client := serveStock(t, up.fake)
	next := client.Transport
	client.Transport = roundTripFunc(func(req *http.Request) (*http.Response, error) {
		sent := sentRequest{trace: req.Context().Value(traceKey{})}
		if d, ok := req.Context().Deadline(); ok {
			sent.hasDeadline, sent.deadline = true, time.Until(d)
		}
		up.mu.Lock()
		up.requests = append(up.requests, sent)
		up.mu.Unlock()
		return next.RoundTrip(req)
	})
	up.shared = NewSharedStock(client, "http://stock.test/stock", sharedTimeout)
	return up
}

// seen is the requests sent so far.
func (up *upstream) seen() []sentRequest {
	up.mu.Lock()
	defer up.mu.Unlock()
	return append([]sentRequest(nil), up.requests...)
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }

// wantLevels is the stock of the fake stock service's JSON, as Levels.
func wantLevels() Levels {
	levels := Levels{}
	for _, f := range fakestock.Flavours {
		levels[f.Name] = f.Stock
	}
	return levels
}
