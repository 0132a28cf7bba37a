package platform

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/icecreamcorp/go-cancellation-workshop/internal/fakestock"
	"github.com/icecreamcorp/go-cancellation-workshop/internal/leakcheck"
	"github.com/icecreamcorp/go-cancellation-workshop/internal/memnet"
)

const sharedTimeout = 5 * time.Second // the bound the tests give every shared request

// traceKey is the context key of a trace id, which travels with a request.
type traceKey struct{}

func TestShared(t *testing.T) {
	leakcheck.Check(t)
	type caller struct {
		at    time.Duration // asks at
		leave time.Duration // its ctx ends (with errLeft) this long after it asks; <0: before
		back  time.Duration // want: Levels returns at
		err   error         // want: Levels' error wraps this (errAny: any error); nil: the levels
	}
	tests := []struct {
		name    string
		replies []fakestock.Reply
		callers []caller // caller i's ctx carries the trace id "trace-i"
		sent    string   // want: the requests' trace ids and deadlines
		seen    string   // want: what the stock service saw
		fix     string
	}{
		{"callers share", []fakestock.Reply{{Delay: 3 * time.Second}},
			[]caller{{leave: time.Second, back: time.Second, err: errLeft}, {back: 3 * time.Second}, {back: 3 * time.Second}, {at: time.Second, back: 3 * time.Second}},
			"trace-0 5s", "request 1 completed after 3s",
			"share one DoChan call that no caller can cancel; hand each a copy"},
		{"ended context", nil, []caller{{leave: -1, err: errLeft}}, "", "nothing",
			"look at ctx.Err() before DoChan; return context.Cause(ctx)"},
		{"upstream hangs", []fakestock.Reply{{Delay: time.Hour}},
			[]caller{{back: sharedTimeout, err: context.DeadlineExceeded}, {back: sharedTimeout, err: context.DeadlineExceeded}},
			"trace-0 5s", "request 1 abandoned after 5s", "bound the shared call with context.WithTimeout(…, s.timeout)"},
		{"asks again", []fakestock.Reply{{Delay: time.Second, Status: http.StatusServiceUnavailable, Body: `{"error":"busy"}`}, {Delay: time.Second}},
			[]caller{{back: time.Second, err: errAny}, {at: time.Second, back: 2 * time.Second}},
			"trace-0 5s, trace-1 5s", "request 1 completed after 1s, request 2 completed after 1s", "return the shared call's error"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				// The stock service, and the requests sent to it: "trace-0 5s", trace id and deadline.
				fake, start := fakestock.New(tt.replies...), time.Now()
				client := memnet.Serve(t, fake).Client()
				var mu sync.Mutex
				var sent []string
				next := client.Transport
				client.Transport = roundTripFunc(func(req *http.Request) (*http.Response, error) {
					left := any("no deadline")
					if d, ok := req.Context().Deadline(); ok {
						left = time.Until(d)
					}
					mu.Lock()
					sent = append(sent, fmt.Sprint(req.Context().Value(traceKey{}), " ", left))
					mu.Unlock()
					return next.RoundTrip(req)
				})
				shared := NewSharedStock(client, "http://stock.test/stock", sharedTimeout)
				var calls []*bgCall[Levels]
				for i, c := range tt.callers {
					time.Sleep(c.at - time.Since(start))
					synctest.Wait() // what is due now has happened
					ctx, cancel := context.WithCancelCause(context.WithValue(t.Context(), traceKey{}, fmt.Sprint("trace-", i)))
					defer cancel(nil)
					if c.leave < 0 {
						cancel(errLeft)
					} else if c.leave > 0 {
						var stop context.CancelFunc
						ctx, stop = context.WithTimeoutCause(ctx, c.leave, errLeft)
						defer stop()
					}
					calls = append(calls, goCall(func() (Levels, error) { return shared.Levels(ctx) }))
				}
				var ok []Levels
				for i, c := range tt.callers {
					got := calls[i]
					got.await(time.Minute)
					want := fmt.Sprintf("(%v, nil) after %v", stockTimes(1), c.back-c.at)
					if c.err != nil {
						want = fmt.Sprintf("(_, %v) after %v", c.err, c.back-c.at)
					}
					if !got.returned() || got.took != c.back-c.at || got.panicked != nil ||
						c.err == nil && (got.err != nil || !maps.Equal(got.got, stockTimes(1))) ||
						c.err != nil && (got.err == nil || c.err != errAny && !errors.Is(got.err, c.err)) {
						t.Errorf("caller %d of Levels, at %v: got %v, want %s (%s)", i, c.at, got, want, tt.fix)
					} else if got.err == nil {
						ok = append(ok, got.got)
					}
				}
				for i, levels := range ok[min(1, len(ok)):] {
					ok[0][fakestock.Flavours[0].Name] = -1 // one caller changes its levels
					if !maps.Equal(levels, stockTimes(1)) {
						t.Errorf("levels %d after another caller changed its own: got %v, want its own copy (%s)", i+1, levels, tt.fix)
					}
				}
				synctest.Wait()
				mu.Lock()
				defer mu.Unlock()
				if got := strings.Join(sent, ", "); got != tt.sent {
					t.Errorf("requests sent (trace id, deadline): got %q, want %q (%s)", got, tt.sent, tt.fix)
				}
				if got := seen(fake); got != tt.seen {
					t.Errorf("the stock service saw %s, want %s (%s)", got, tt.seen, tt.fix)
				}
			})
		})
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }
