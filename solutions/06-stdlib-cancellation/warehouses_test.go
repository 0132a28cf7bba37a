package platform

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/icecreamcorp/go-cancellation-workshop/internal/fakestock"
	"github.com/icecreamcorp/go-cancellation-workshop/internal/leakcheck"
	"github.com/icecreamcorp/go-cancellation-workshop/internal/memnet"
)

func TestWarehouses(t *testing.T) {
	begun(t, "TotalStock", func() error { _, err := TotalStock(ended(), http.DefaultClient, nil, 1); return err })
	leakcheck.Check(t)

	t.Run("adds up", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			w := newWarehouses(t, map[string]fakestock.Reply{
				"north": {Delay: 1 * time.Second, Body: stockBody(map[string]int{"Pistachio": 10, "Neopolitan": 1})},
				"south": {Delay: 2 * time.Second, Body: stockBody(map[string]int{"Pistachio": 5})},
				"east":  {Delay: 3 * time.Second, Body: stockBody(map[string]int{"Cookies 'n' Cream": 7})},
			})
			total := goCall(func() (Levels, error) { return TotalStock(t.Context(), w.client, w.urls, 3) })
			total.await(time.Minute)
			require.True(t, total.returned(), "TotalStock(3 warehouses, limit 3) %v; want it to return (task 7)", total)
			assert.NoError(t, total.err, "TotalStock(3 warehouses, limit 3) (task 7: ask every warehouse and add up their levels)")
			assert.Equal(t, Levels{"Pistachio": 15, "Neopolitan": 1, "Cookies 'n' Cream": 7}, total.got,
				"TotalStock(3 warehouses, limit 3): the levels of north, south and east, added up (task 7: wait for every request with g.Wait, then add up)")
			assert.Equal(t, 3*time.Second, total.took,
				"TotalStock(warehouses that take 1s, 2s and 3s, limit 3) took %v; want 3s, the slowest one, not one after the other (task 7: errgroup.Group.Go)", total.took)
		})
	})

	t.Run("limit", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			replies := map[string]fakestock.Reply{}
			for _, name := range []string{"north", "south", "east", "west", "harbour"} {
				replies[name] = fakestock.Reply{Delay: time.Second}
			}
			w := newWarehouses(t, replies)
			total := goCall(func() (Levels, error) { return TotalStock(t.Context(), w.client, w.urls, 2) })
			total.await(time.Minute)
			require.True(t, total.returned(), "TotalStock(5 warehouses, limit 2) %v; want it to return (task 7)", total)
			assert.NoError(t, total.err, "TotalStock(5 warehouses, limit 2) (task 7)")
			assert.Equal(t, 2, w.mostInFlight(),
				"TotalStock(5 warehouses, limit 2) had %d request(s) in flight at once at most; want 2 (task 7: errgroup.Group.SetLimit)", w.mostInFlight())
			assert.Equal(t, 5*fakestock.Flavours[0].Stock, total.got[fakestock.Flavours[0].Name],
				"TotalStock(5 warehouses, limit 2): %s, added up over the 5 (task 7)", fakestock.Flavours[0].Name)
			assert.Equal(t, 3*time.Second, total.took,
				"TotalStock(5 warehouses of 1s each, limit 2) took %v; want 3s: two at a time, the next as soon as a slot is free (task 7: errgroup.Group.SetLimit)", total.took)
		})
	})

	t.Run("first failure cancels", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			w := newWarehouses(t, map[string]fakestock.Reply{
				"east":  {Delay: 10 * time.Second},
				"north": {Delay: 10 * time.Second},
				"south": {Delay: 1 * time.Second, Status: http.StatusServiceUnavailable, Body: `{"error":"freezer defrosting"}`},
				"west":  {Delay: 10 * time.Second},
			})
			// limit 3: north, south and east at once; west waits for a slot.
			total := goCall(func() (Levels, error) { return TotalStock(t.Context(), w.client, w.urls, 3) })
			time.Sleep(time.Second)
			synctest.Wait()
			if assert.True(t, total.returned(), "TotalStock %v when south answered 503 at 1s; want it to return at 1s with south's error "+
				"(task 7: make every request with the context of errgroup.WithContext, which ends at the first failure)", total) {
				require.Error(t, total.err, "TotalStock returned no error when south answered 503 (task 7: return g.Wait's error)")
				assert.Contains(t, total.err.Error(), "south.test",
					"TotalStock's error when south answered 503 at 1s: %v; want south's own failure, the first one, not what it did to the others (task 7: return g.Wait's error)", total.err)
				assert.NotErrorIs(t, total.err, context.Canceled,
					"TotalStock's error when south answered 503 at 1s: %v; want south's failure, not the cancellation it caused (task 7: return g.Wait's error)", total.err)
				// A request that was cancelled fails with a *url.Error naming
				// its own warehouse, its cause (south's failure) inside.
				var urlErr *url.Error
				if errors.As(total.err, &urlErr) && !strings.Contains(urlErr.URL, "south.test") {
					assert.Fail(t, fmt.Sprintf("TotalStock's error when south answered 503 at 1s: %v; want south's own failure, not the error of the request to %s, "+
						"which failed only because south's failure cancelled it (task 7: return g.Wait's error, the first failure — not an error you collected later)", total.err, urlErr.URL))
				}
			}
			for _, name := range []string{"east", "north"} {
				calls := w.fakes[name].Calls()
				if assert.Len(t, calls, 1, "%s's stock service at 1s, when south failed, had %s; want one, abandoned at 1s "+
					"(task 7: make each request with the group's context from errgroup.WithContext, which ends at the first failure)", name, requests(w.fakes[name])) {
					assert.Equal(t, fakestock.Abandoned, calls[0].Outcome,
						"%s's stock service saw its request %s; want it abandoned the moment south failed "+
							"(task 7: make each request with the group's context from errgroup.WithContext, not the caller's)", name, calls[0])
					assert.Equal(t, time.Second, calls[0].Took(), "%s's request %s; want abandoned at 1s, when south failed (task 7)", name, calls[0])
				}
			}
			assert.Zero(t, w.fakes["west"].Started(), "west's stock service got %s; want none: with limit 3, west waits for a slot, "+
				"and once south has failed the count is over (task 7: Group.SetLimit, and the group's context)", requests(w.fakes["west"]))
			total.await(time.Minute) // a wrong answer may still be waiting for north
		})
	})

	t.Run("caller leaves", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			w := newWarehouses(t, map[string]fakestock.Reply{
				"east":  {Delay: 10 * time.Second},
				"north": {Delay: 10 * time.Second},
				"south": {Delay: 10 * time.Second},
			})
			// limit 2: east and north at once; south waits for a slot.
			ctx, leave := context.WithCancel(t.Context())
			defer leave()
			total := goCall(func() (Levels, error) { return TotalStock(ctx, w.client, w.urls, 2) })
			time.Sleep(2 * time.Second)
			leave()
			synctest.Wait()
			if assert.True(t, total.returned(), "TotalStock %v after its caller left at 2s; want it to return at once (task 7: errgroup.WithContext(ctx))", total) {
				assert.ErrorIs(t, total.err, context.Canceled, "TotalStock's error after its caller left (task 7)")
			}
			for _, name := range []string{"east", "north"} {
				calls := w.fakes[name].Calls()
				if assert.Len(t, calls, 1, "%s's stock service when the caller left at 2s had %s; want one, abandoned at 2s "+
					"(task 7: ask at once, up to the limit, with a group's context derived from ctx)", name, requests(w.fakes[name])) {
					assert.Equal(t, fakestock.Abandoned, calls[0].Outcome, "%s's request %s; want abandoned when the caller left (task 7: derive the group's context from ctx)", name, calls[0])
				}
			}
			assert.Zero(t, w.fakes["south"].Started(), "south's stock service got %s; want none: with limit 2, south waits for a slot, "+
				"and once the caller has left the count is over (task 7: Group.SetLimit, and a group's context derived from ctx)", requests(w.fakes["south"]))
			total.await(time.Minute)
		})
	})

	t.Run("ended context", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			w := newWarehouses(t, map[string]fakestock.Reply{"north": {}, "south": {}})
			errLeft := errors.New("the manager closed the dashboard")
			ctx, leave := context.WithCancelCause(t.Context())
			leave(errLeft)
			total := goCall(func() (Levels, error) { return TotalStock(ctx, w.client, w.urls, 2) })
			total.await(time.Minute)
			require.True(t, total.returned(), "TotalStock for a caller who had already left %v; want it to return at once (task 7)", total)
			fix := "task 7: derive the group's context from ctx; a function that finds it ended returns context.Cause(gctx), not gctx.Err()"
			if total.err == nil && len(total.got) == 0 {
				fix = "not an empty total, as if every warehouse were empty — task 7: if you stop before Go on a context that has ended, still return why"
			}
			assert.ErrorIs(t, total.err, errLeft, "TotalStock for a caller who had already left with the cause %q returned (%v, %v); want that cause (%s)", errLeft, total.got, total.err, fix)
			for _, name := range []string{"north", "south"} {
				assert.Zero(t, w.fakes[name].Started(), "%s's stock service got %s from a caller who had already left; want none (task 7)", name, requests(w.fakes[name]))
			}
		})
	})

	t.Run("zero limit", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			w := newWarehouses(t, map[string]fakestock.Reply{"north": {}})
			total := goCall(func() (Levels, error) { return TotalStock(t.Context(), w.client, w.urls, 0) })
			total.await(time.Minute)
			require.True(t, total.returned(), "TotalStock(limit 0) %v; want an error at once: Group.Go at a limit of 0 waits for ever (task 7: keep the limit check at the top of TotalStock)", total)
			assert.Error(t, total.err, "TotalStock(limit 0) (task 7: keep the limit check at the top of TotalStock)")
			assert.Zero(t, w.fakes["north"].Started(), "north's stock service got %s for a limit of 0; want none (task 7)", requests(w.fakes["north"]))
		})
	})
}

// warehouses are fake stock services, one per warehouse, each at its own
// host (http://north.test/stock), all reached by one client.
type warehouses struct {
	client *http.Client
	urls   []string                      // in alphabetical order of the names
	fakes  map[string]*fakestock.Service // by name

	mu       sync.Mutex
	inFlight int
	most     int
}

// newWarehouses starts a fake stock service per warehouse, playing its reply
// to every request. Call it inside the synctest bubble that uses it.
func newWarehouses(t testing.TB, replies map[string]fakestock.Reply) *warehouses {
	t.Helper()
	w := &warehouses{fakes: map[string]*fakestock.Service{}}
	byHost := map[string]*fakestock.Service{}
	for _, name := range sortedKeys(replies) {
		fake := fakestock.New(replies[name])
		w.fakes[name] = fake
		byHost[name+".test"] = fake
		w.urls = append(w.urls, "http://"+name+".test/stock")
	}
	w.client = serveStock(t, http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		fake, ok := byHost[r.Host]
		if !ok {
			http.NotFound(rw, r)
			return
		}
		w.mu.Lock()
		w.inFlight++
		w.most = max(w.most, w.inFlight)
		w.mu.Unlock()
		defer func() {
			w.mu.Lock()
			w.inFlight--
			w.mu.Unlock()
		}()
		fake.ServeHTTP(rw, r)
	}))
	return w
}

// requests says what a fake stock service got: "2 request(s) (1 in flight;
// ended: request 1 abandoned after 1s)".
func requests(fake *fakestock.Service) string {
	return fmt.Sprintf("%d request(s) (%d in flight; ended: %v)", fake.Started(), fake.InFlight(), fake.Calls())
}

// mostInFlight is the largest number of requests the warehouses were
// answering at the same time.
func (w *warehouses) mostInFlight() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.most
}

// serveStock serves h to the client it returns, inside the synctest bubble
// of the test.
func serveStock(t testing.TB, h http.Handler) *http.Client {
	t.Helper()
	return memnet.Serve(t, h).Client()
}

// stockBody is a stock service's JSON body with the given levels.
func stockBody(levels map[string]int) string {
	body := `{"stock":[`
	for i, name := range sortedKeys(levels) {
		if i > 0 {
			body += ","
		}
		body += fmt.Sprintf(`{"id":"%d","name":%q,"stock":%d}`, i, name, levels[name])
	}
	return body + `],"delay":0}`
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
