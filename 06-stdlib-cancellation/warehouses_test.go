package platform

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/icecreamcorp/go-cancellation-workshop/internal/fakestock"
	"github.com/icecreamcorp/go-cancellation-workshop/internal/leakcheck"
	"github.com/icecreamcorp/go-cancellation-workshop/internal/memnet"
)

func TestWarehouses(t *testing.T) {
	begun(t, "TotalStock", func() error { _, err := TotalStock(ended(), http.DefaultClient, nil, 1); return err })
	leakcheck.Check(t)
	slow, second := fakestock.Reply{Delay: 10 * time.Second}, fakestock.Reply{Delay: time.Second, Body: `{"stock":[{"name":"Pistachio","stock":2}]}`}
	tests := []struct {
		name    string
		replies map[string]fakestock.Reply
		limit   int
		leave   time.Duration // the caller leaves (errLeft) this long after asking; <0: before
		want    string        // want: TotalStock's levels if any and verdict, then what the warehouses saw
		errOf   string        // want: an error from this warehouse's request
		fix     string
	}{
		{name: "adds up", limit: 3, replies: map[string]fakestock.Reply{
			"north": {Delay: 1 * time.Second, Body: `{"stock":[{"name":"Pistachio","stock":10},{"name":"Neopolitan","stock":1}]}`},
			"south": {Delay: 2 * time.Second, Body: `{"stock":[{"name":"Pistachio","stock":5}]}`},
			"east":  {Delay: 3 * time.Second, Body: `{"stock":[{"name":"Cookies 'n' Cream","stock":7}]}`},
		}, want: "map[Cookies 'n' Cream:7 Neopolitan:1 Pistachio:15] ok at 3s; east: 0s completed after 3s; north: 0s completed after 1s; south: 0s completed after 2s",
			fix: "ask all at once with Group.Go, add up after Wait"},
		{name: "limit", limit: 2, replies: map[string]fakestock.Reply{"east": second, "harbour": second, "north": second, "south": second, "west": second},
			fix: "Group.SetLimit(limit)", want: "map[Pistachio:10] ok at 3s; east: 0s completed after 1s; harbour: 0s completed after 1s; " +
				"north: 1s completed after 1s; south: 1s completed after 1s; west: 2s completed after 1s"},
		{name: "first failure", limit: 3, replies: map[string]fakestock.Reply{
			"east": slow, "north": slow, "west": slow,
			"south": {Delay: time.Second, Status: http.StatusServiceUnavailable, Body: `{"error":"freezer defrosting"}`},
		}, errOf: "south.test", fix: "ask with the context of errgroup.WithContext; return Wait's error",
			want: "error at 1s; east: 0s abandoned after 1s; north: 0s abandoned after 1s; south: 0s completed after 1s; west: nothing"},
		{name: "caller leaves", limit: 2, leave: 2 * time.Second, replies: map[string]fakestock.Reply{"east": slow, "north": slow, "south": slow},
			want: "the caller left at 2s; east: 0s abandoned after 2s; north: 0s abandoned after 2s; south: nothing", fix: "errgroup.WithContext(ctx), SetLimit"},
		{name: "ended context", limit: 2, leave: -1, replies: map[string]fakestock.Reply{"north": {}, "south": {}},
			want: "the caller left at 0s; north: nothing; south: nothing", fix: "return context.Cause(gctx) from Go's function; an empty total is no answer"},
		{name: "zero limit", replies: map[string]fakestock.Reply{"north": {}},
			want: "error at 0s; north: nothing", fix: "keep the limit check: Go waits for ever at limit 0"},
		{name: "negative limit", limit: -1, replies: map[string]fakestock.Reply{"north": {}}, want: "error at 0s; north: nothing", fix: "a limit below 1 is an error: limit < 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				fakes, urls, start := map[string]*fakestock.Service{}, []string{}, time.Now()
				for _, name := range sortedKeys(tt.replies) {
					fakes[name] = fakestock.New(tt.replies[name])
					urls = append(urls, "http://"+name+".test/stock")
				}
				client := memnet.Serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					fakes[strings.TrimSuffix(r.Host, ".test")].ServeHTTP(w, r) // a warehouse per host: http://north.test/stock
				})).Client()
				total := goCall(func() (Levels, error) { return TotalStock(leaving(t, tt.leave), client, urls, tt.limit) })
				total.await(time.Minute)
				synctest.Wait()
				got := verdict(total, 0)
				for _, name := range sortedKeys(fakes) {
					got += "; " + name + ": " + history(fakes[name], start)
				}
				if got != tt.want {
					t.Errorf("TotalStock:%s\n\tfix: %s", differ(got, tt.want), tt.fix)
				}
				var urlErr *url.Error
				if tt.errOf != "" && total.returned() && total.err != nil &&
					(!strings.Contains(total.err.Error(), tt.errOf) || errors.As(total.err, &urlErr) && !strings.Contains(urlErr.URL, tt.errOf)) {
					t.Errorf("TotalStock: got %v, want the first failure, %s's (%s)", total.err, tt.errOf, tt.fix)
				}
			})
		})
	}
}

// leaving is a context of t's that ends with errLeft d from now (<0: has; 0: never).
func leaving(t *testing.T, d time.Duration) context.Context {
	if d == 0 {
		return t.Context()
	}
	ctx, cancel := context.WithTimeoutCause(t.Context(), d, errLeft)
	t.Cleanup(cancel)
	return ctx
}

// verdict says what c, started at, returned and when: its value and "ok at 3s", or for an error the text
// of the first of errLeft, errInk, DeadlineExceeded and Canceled it wraps ("the caller left at 1s"), or "error".
func verdict[T any](c *bgCall[T], at time.Duration) string {
	if !c.returned() || c.panicked != nil {
		return c.String()
	}
	word := "error"
	if _, none := any(c.got).(struct{}); c.err == nil && none {
		word = "ok"
	} else if c.err == nil {
		word = fmt.Sprint(c.got, " ok")
	}
	for _, e := range []error{context.Canceled, context.DeadlineExceeded, errInk, errLeft} {
		if errors.Is(c.err, e) {
			word = e.Error()
		}
	}
	return fmt.Sprintf("%s at %v", word, at+c.took)
}

// history says what a fake stock service saw, if start is the bubble's 0s:
// "0s completed after 3s, 3s abandoned after 1s, 1 in flight", or "nothing".
func history(fake *fakestock.Service, start time.Time) string {
	var s []string
	for _, c := range fake.Calls() {
		s = append(s, fmt.Sprintf("%v %s after %v", c.Started.Sub(start), c.Outcome, c.Took()))
	}
	if n := fake.InFlight(); n > 0 {
		s = append(s, fmt.Sprintf("%d in flight", n))
	}
	return cmp.Or(strings.Join(s, ", "), "nothing")
}

// differ shows where got and want, verdicts of "; "-separated parts, differ:
// each part that does, got above want.
func differ(got, want string) string {
	g, w := strings.Split(got, "; "), strings.Split(want, "; ")
	part := func(s []string, i int) string {
		if i < len(s) {
			return s[i]
		}
		return "nothing"
	}
	var b strings.Builder
	for i := range max(len(g), len(w)) {
		if part(g, i) != part(w, i) {
			fmt.Fprintf(&b, "\n\tgot  %s\n\twant %s", part(g, i), part(w, i))
		}
	}
	return b.String()
}

func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }
