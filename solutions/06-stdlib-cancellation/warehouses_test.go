package platform

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
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
	slow, second := fakestock.Reply{Delay: 10 * time.Second}, fakestock.Reply{Delay: time.Second}
	tests := []struct {
		name    string
		replies map[string]fakestock.Reply
		limit   int
		leave   time.Duration // the caller leaves (errLeft) this long after the call; <0: before it
		want    Levels        // or, if nil, an error:
		errIs   error         // that wraps this, or
		errOf   string        // that is the failure of this warehouse, not a cancelled one's
		took    time.Duration
		most    int    // requests in flight at once at most; 0: not checked
		seen    string // what the warehouses saw; "": not checked
		fix     string
	}{
		{name: "adds up", limit: 3, replies: map[string]fakestock.Reply{
			"north": {Delay: 1 * time.Second, Body: `{"stock":[{"name":"Pistachio","stock":10},{"name":"Neopolitan","stock":1}]}`},
			"south": {Delay: 2 * time.Second, Body: `{"stock":[{"name":"Pistachio","stock":5}]}`},
			"east":  {Delay: 3 * time.Second, Body: `{"stock":[{"name":"Cookies 'n' Cream","stock":7}]}`},
		}, want: Levels{"Pistachio": 15, "Neopolitan": 1, "Cookies 'n' Cream": 7}, took: 3 * time.Second, most: 3,
			fix: "ask all at once with Group.Go, add up after Wait"},
		{name: "limit", limit: 2, replies: map[string]fakestock.Reply{
			"east": second, "harbour": second, "north": second, "south": second, "west": second,
		}, want: stockTimes(5), took: 3 * time.Second, most: 2,
			fix: "Group.SetLimit(limit)"},
		{name: "first failure", limit: 3, replies: map[string]fakestock.Reply{
			"east": slow, "north": slow, "west": slow,
			"south": {Delay: time.Second, Status: http.StatusServiceUnavailable, Body: `{"error":"freezer defrosting"}`},
		}, errOf: "south.test", took: time.Second,
			seen: "east: request 1 abandoned after 1s; north: request 1 abandoned after 1s; south: request 1 completed after 1s; west: nothing",
			fix:  "ask with the context of errgroup.WithContext; return Wait's error"},
		{name: "caller leaves", limit: 2, leave: 2 * time.Second, replies: map[string]fakestock.Reply{
			"east": slow, "north": slow, "south": slow,
		}, errIs: errLeft, took: 2 * time.Second,
			seen: "east: request 1 abandoned after 2s; north: request 1 abandoned after 2s; south: nothing",
			fix:  "errgroup.WithContext(ctx), SetLimit"},
		{name: "ended context", limit: 2, leave: -1, replies: map[string]fakestock.Reply{"north": {}, "south": {}},
			errIs: errLeft, seen: "north: nothing; south: nothing",
			fix: "return context.Cause(gctx) from Go's function; an empty total is no answer"},
		{name: "zero limit", replies: map[string]fakestock.Reply{"north": {}},
			seen: "north: nothing", fix: "keep the limit check: Go waits for ever at limit 0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				// A fake stock service per warehouse, at its own host (http://north.test/stock),
				// all behind one server that counts the requests in flight.
				fakes, urls := map[string]*fakestock.Service{}, []string{}
				for _, name := range sortedKeys(tt.replies) {
					fakes[name] = fakestock.New(tt.replies[name])
					urls = append(urls, "http://"+name+".test/stock")
				}
				var mu sync.Mutex
				var inFlight, most int
				client := memnet.Serve(t, http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
					mu.Lock()
					inFlight++
					most = max(most, inFlight)
					mu.Unlock()
					defer func() { mu.Lock(); inFlight--; mu.Unlock() }()
					fakes[strings.TrimSuffix(r.Host, ".test")].ServeHTTP(rw, r)
				})).Client()
				ctx, leave := context.WithCancelCause(t.Context())
				defer leave(nil)
				if tt.leave < 0 {
					leave(errLeft)
				}
				total := goCall(func() (Levels, error) { return TotalStock(ctx, client, urls, tt.limit) })
				if tt.leave > 0 {
					time.Sleep(tt.leave)
					leave(errLeft)
				}
				total.await(time.Minute)
				synctest.Wait()
				call := fmt.Sprintf("TotalStock(%s, limit %d)", strings.Join(sortedKeys(tt.replies), " "), tt.limit)
				if !total.returned() || total.took != tt.took {
					t.Errorf("%s %v; want it back after %v (%s)", call, total, tt.took, tt.fix)
				}
				var urlErr *url.Error
				switch {
				case tt.want != nil:
					if total.err != nil || !maps.Equal(total.got, tt.want) {
						t.Errorf("%s = (%v, %v), want %v (%s)", call, total.got, total.err, tt.want, tt.fix)
					}
				case total.err == nil:
					t.Errorf("%s = (%v, nil), want an error (%s)", call, total.got, tt.fix)
				case tt.errIs != nil && !errors.Is(total.err, tt.errIs):
					t.Errorf("%s: got %v, want %v (%s)", call, total.err, tt.errIs, tt.fix)
				case tt.errOf != "" && (!strings.Contains(total.err.Error(), tt.errOf) || errors.Is(total.err, context.Canceled) ||
					errors.As(total.err, &urlErr) && !strings.Contains(urlErr.URL, tt.errOf)):
					t.Errorf("%s: got %v, want the first failure, %s's (%s)", call, total.err, tt.errOf, tt.fix)
				}
				mu.Lock()
				if tt.most != 0 && most != tt.most {
					t.Errorf("%s: got %d requests in flight at most, want %d (%s)", call, most, tt.most, tt.fix)
				}
				mu.Unlock()
				var saw []string
				for _, name := range sortedKeys(fakes) {
					saw = append(saw, name+": "+seen(fakes[name]))
				}
				if got := strings.Join(saw, "; "); tt.seen != "" && got != tt.seen {
					t.Errorf("%s: the warehouses saw %s, want %s (%s)", call, got, tt.seen, tt.fix)
				}
			})
		})
	}
}

// seen says what a fake stock service saw: "nothing", or each request it
// finished with ("request 1 abandoned after 1s"), and how many are in flight.
func seen(fake *fakestock.Service) string {
	var s []string
	for _, c := range fake.Calls() {
		s = append(s, c.String())
	}
	if n := fake.InFlight(); n > 0 {
		s = append(s, fmt.Sprintf("%d in flight", n))
	}
	if len(s) == 0 {
		return "nothing"
	}
	return strings.Join(s, ", ")
}

func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }

// stockTimes is the stock of the fake stock service's JSON, n times over.
func stockTimes(n int) Levels {
	levels := Levels{}
	for _, f := range fakestock.Flavours {
		levels[f.Name] = n * f.Stock
	}
	return levels
}
