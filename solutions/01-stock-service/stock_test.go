package main

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/icecreamcorp/go-cancellation-workshop/internal/leakcheck"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// These tests run in virtual time (testing/synctest): a 10 s delay costs
// nothing, and time only moves when every goroutine of the test is waiting.

// newTestService returns a stock service whose every request waits delay,
// and which logs nothing.
func newTestService(delay time.Duration) *stockService {
	return newStockService(func() time.Duration { return delay }, slog.New(slog.DiscardHandler))
}

// startRequest serves method /stock through h on its own goroutine, as
// net/http would, with ctx as the request's context. The channel yields the
// response once the handler has returned.
func startRequest(t *testing.T, ctx context.Context, h http.Handler, method string) <-chan *httptest.ResponseRecorder {
	done := make(chan *httptest.ResponseRecorder, 1)
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequestWithContext(ctx, method, "/stock", nil))
		done <- rec
	}()
	// Virtual time stops when the test's function returns: wait here, while
	// it still runs, for a handler that did not give up when it should have,
	// so that the test reports a failed assertion rather than a deadlock.
	t.Cleanup(func() { <-finished })
	return done
}

// returned reports whether the handler behind done has returned, without waiting.
func returned(done <-chan *httptest.ResponseRecorder) (*httptest.ResponseRecorder, bool) {
	select {
	case rec := <-done:
		return rec, true
	default:
		return nil, false
	}
}

// stockBody is what the menu service will decode.
type stockBody struct {
	Stock []flavour `json:"stock"`
	Delay int64     `json:"delay"`
}

// decodeStock requires a 200 with a JSON body and decodes it.
func decodeStock(t testing.TB, rec *httptest.ResponseRecorder) stockBody {
	t.Helper()
	require.Equal(t, http.StatusOK, rec.Code,
		"GET /stock answered %d %s; want 200 with the three flavours (task 1: answer with writeJSON and http.StatusOK)",
		rec.Code, strings.TrimSpace(rec.Body.String()))
	var body stockBody
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &body),
		"GET /stock answered %q, which is not the JSON the menu expects (task 1)", rec.Body.String())
	return body
}

func TestStockResponse(t *testing.T) {
	t.Run("answers GET /stock with 200 and the three flavours of the talk", func(t *testing.T) {
		leakcheck.Check(t)
		synctest.Test(t, func(t *testing.T) {
			body := decodeStock(t, <-startRequest(t, t.Context(), newTestService(0).handler(), http.MethodGet))
			want := []flavour{
				{ID: "cf93d53f-7f60-4c9d-a543-ef217a09269b", Name: "Cookies 'n' Cream", Stock: 8532},
				{ID: "41373bb6-e6fb-4606-8f01-1cd24e228939", Name: "Neopolitan", Stock: 0},
				{ID: "8e884a8d-ae04-4518-80b7-377ee5bcecc6", Name: "Pistachio", Stock: 6437},
			}
			assert.Equal(t, want, body.Stock, "GET /stock listed other flavours; want the talk's three, in order (task 1: use flavours)")
		})
	})

	t.Run("says its body is JSON", func(t *testing.T) {
		leakcheck.Check(t)
		synctest.Test(t, func(t *testing.T) {
			rec := <-startRequest(t, t.Context(), newTestService(0).handler(), http.MethodGet)
			assert.Contains(t, rec.Header().Get("Content-Type"), "application/json",
				"GET /stock sent Content-Type %q; want application/json (task 1: writeJSON sets it)", rec.Header().Get("Content-Type"))
		})
	})

	t.Run("has exactly the fields stock and delay, with delay a number", func(t *testing.T) {
		leakcheck.Check(t)
		synctest.Test(t, func(t *testing.T) {
			rec := <-startRequest(t, t.Context(), newTestService(0).handler(), http.MethodGet)
			var fields map[string]json.RawMessage
			require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &fields),
				"GET /stock answered %q; want a JSON object (task 1)", rec.Body.String())
			keys := slices.Sorted(maps.Keys(fields))
			require.Equal(t, []string{"delay", "stock"}, keys,
				"GET /stock answered %s; want the fields \"stock\" and \"delay\" and no others (task 1: json tags on stockResponse)", strings.TrimSpace(rec.Body.String()))
			var ms int64
			assert.NoError(t, json.Unmarshal(fields["delay"], &ms),
				"\"delay\" is %s; want a whole number of milliseconds (task 1)", fields["delay"])
		})
	})

	t.Run("refuses other methods with 405, as a GET-only route does", func(t *testing.T) {
		leakcheck.Check(t)
		synctest.Test(t, func(t *testing.T) {
			rec := <-startRequest(t, t.Context(), newTestService(0).handler(), http.MethodPost)
			assert.Equal(t, http.StatusMethodNotAllowed, rec.Code,
				"POST /stock answered %d; want 405 Method Not Allowed (task 1: register the route with a method in its pattern)", rec.Code)
		})
	})
}

func TestDelay(t *testing.T) {
	t.Run("answers when its delay is over, not a nanosecond before", func(t *testing.T) {
		leakcheck.Check(t)
		synctest.Test(t, func(t *testing.T) {
			const delay = 2500 * time.Millisecond
			done := startRequest(t, t.Context(), newTestService(delay).handler(), http.MethodGet)
			time.Sleep(delay - time.Nanosecond)
			synctest.Wait()
			_, early := returned(done)
			require.False(t, early, "GET /stock had already answered at %v; want no answer before its delay of %v is over (task 2: wait with time.NewTimer)", delay-time.Nanosecond, delay)
			time.Sleep(time.Nanosecond)
			synctest.Wait()
			_, ok := returned(done)
			assert.True(t, ok, "GET /stock had not answered at %v, when its delay was over; want the answer then (task 2)", delay)
		})
	})

	t.Run("reports the delay it waited, in milliseconds", func(t *testing.T) {
		leakcheck.Check(t)
		synctest.Test(t, func(t *testing.T) {
			body := decodeStock(t, <-startRequest(t, t.Context(), newTestService(2500*time.Millisecond).handler(), http.MethodGet))
			assert.Equal(t, int64(2500), body.Delay, "GET /stock reported \"delay\": %d for a delay of 2.5s; want 2500 (task 2: Duration.Milliseconds)", body.Delay)
		})
	})

	t.Run("draws a fresh delay for every request", func(t *testing.T) {
		leakcheck.Check(t)
		synctest.Test(t, func(t *testing.T) {
			draws := 0 // the requests run one after the other, so one goroutine at a time counts
			svc := newStockService(func() time.Duration { draws++; return time.Second }, slog.New(slog.DiscardHandler))
			for range 3 {
				<-startRequest(t, t.Context(), svc.handler(), http.MethodGet)
			}
			assert.Equal(t, 3, draws, "s.delay() was called %d times for 3 requests; want once per request (task 2)", draws)
		})
	})

	t.Run("uniformDelay draws from all of [0, max)", func(t *testing.T) {
		const maxDelay = 10 * time.Second
		draw := uniformDelay(maxDelay)
		lo, hi := maxDelay, time.Duration(-1)
		for range 1000 {
			d := draw()
			require.True(t, d >= 0 && d < maxDelay, "uniformDelay(%v) drew %v; want a delay in [0, %v) (task 2: math/rand/v2 N)", maxDelay, d, maxDelay)
			lo, hi = min(lo, d), max(hi, d)
		}
		assert.True(t, lo < maxDelay/10 && hi >= maxDelay*9/10,
			"1000 draws of uniformDelay(%v) ranged over [%v, %v]; want them spread over [0, %v) (task 2: math/rand/v2 N)", maxDelay, lo, hi, maxDelay)
	})

	// Handlers run on many goroutines at once, and every one of them calls
	// the same uniformDelay function. go test -race reports a generator they
	// share without a lock; plain go test sees its symptom: two goroutines
	// that read the generator's state at the same moment draw the same delay.
	// Over [0, 2⁶²) a repeat by chance is a one-in-a-billion event. A
	// generator that draws whole milliseconds (also right) has far fewer
	// delays to draw from, and over millions of draws repeats one by chance:
	// for it, only a delay drawn twice by batches of draws that ran at the
	// same time counts. To look at millions of draws in little memory, the
	// test keeps only one delay in 64: a repeated delay is kept twice, or not
	// at all.
	t.Run("uniformDelay is safe to call from many requests at once", func(t *testing.T) {
		const maxDelay = time.Duration(1 << 62)
		const goroutines, window = 4, 40 * time.Millisecond
		once, draw := make(map[time.Duration]bool), uniformDelay(maxDelay)
		step := uint64(0) // the generator's step: 1ns for rand.N, 1ms for whole milliseconds
		for range 1000 {
			d := draw()
			if once[d] {
				assert.Fail(t, fmt.Sprintf("uniformDelay(2⁶²ns) drew %d twice in 1000 draws, one after the other; want random delays (task 2: math/rand/v2 N)", d))
				return
			}
			once[d] = true
			for a, b := step, uint64(d); b != 0; { // step = gcd(step, d)
				a, b = b, a%b
				step = a
			}
		}
		step = max(step, 1)
		delays := uint64(maxDelay) / step // how many delays it draws from
		if delays < 1<<40 {
			t.Logf("uniformDelay(2⁶²ns) draws whole multiples of %v: too few delays to tell a data race from chance here; go test -race checks it", time.Duration(step))
			return
		}
		byChance := delays < 1<<56 // a repeat far apart in time may be chance
		type batch struct{ from, to time.Time }
		type kept struct {
			d        time.Duration
			g, batch int // which goroutine drew it, in which of its batches
		}
		for range 3 { // a race shows only when the goroutines really run at once, on cores of their own: give it a few chances
			draw := uniformDelay(maxDelay)
			keep := make([][]kept, goroutines)
			batches := make([][]batch, goroutines)
			var wg sync.WaitGroup
			start := make(chan struct{})
			var until time.Time
			for i := range goroutines {
				wg.Go(func() {
					<-start
					for from := time.Now(); from.Before(until); {
						b := len(batches[i])
						for range 1024 {
							if d := draw(); (uint64(d)/step)%64 == 0 {
								keep[i] = append(keep[i], kept{d, i, b})
							}
						}
						to := time.Now()
						batches[i] = append(batches[i], batch{from, to})
						from = to
					}
				})
			}
			until = time.Now().Add(window)
			close(start)
			wg.Wait()
			all := slices.Concat(keep...)
			slices.SortFunc(all, func(x, y kept) int { return cmp.Compare(x.d, y.d) })
			n := 0
			for _, b := range batches {
				n += 1024 * len(b)
			}
			for k := 1; k < len(all); k++ {
				x, y := all[k-1], all[k]
				bx, by := batches[x.g][x.batch], batches[y.g][y.batch]
				together := !bx.from.After(by.to) && !by.from.After(bx.to) // the two batches ran at the same time
				if x.d == y.d && (together || !byChance) {
					assert.Fail(t, fmt.Sprintf("uniformDelay(2⁶²ns) drew %d twice in %d draws made by %d goroutines at once: they share one generator without a lock, "+
						"a data race (task 2: call math/rand/v2's top-level N, which is safe for concurrent use — a *rand.Rand is not)", x.d, n, goroutines))
					return
				}
			}
		}
	})

	t.Run("uniformDelay(0) never waits", func(t *testing.T) {
		assert.NotPanics(t, func() {
			assert.Zero(t, uniformDelay(0)(), "uniformDelay(0) drew a delay; want 0 (task 2)")
		}, "uniformDelay(0)() panicked; want it to return 0 (task 2: rand.N panics when its argument is 0)")
	})
}
