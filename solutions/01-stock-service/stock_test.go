package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"maps"
	"mime"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"testing/synctest"
	"time"
)

// GET /stock answers 200 with a JSON object: the flavours, and the delay
// it waited in milliseconds (0 here).
func Example_getStock() {
	h := http.TimeoutHandler(newTestService(0).handler(), time.Second, "no answer within 1s")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/stock", nil))
	media, _, _ := mime.ParseMediaType(rec.Header().Get("Content-Type"))
	fmt.Println(rec.Code, media)
	var fields map[string]any
	if err := json.Unmarshal(rec.Body.Bytes(), &fields); err != nil {
		fmt.Printf("%s\n", bytes.TrimSpace(rec.Body.Bytes()))
	}
	for _, k := range slices.Sorted(maps.Keys(fields)) {
		v, _ := json.Marshal(fields[k])
		fmt.Printf("%s: %s\n", k, v)
	}
	// Output:
	// 200 application/json
	// delay: 0
	// stock: [{"id":"cf93d53f-7f60-4c9d-a543-ef217a09269b","name":"Cookies 'n' Cream","stock":8532},{"id":"41373bb6-e6fb-4606-8f01-1cd24e228939","name":"Neopolitan","stock":0},{"id":"8e884a8d-ae04-4518-80b7-377ee5bcecc6","name":"Pistachio","stock":6437}]
}

func TestStockResponse(t *testing.T) {
	for _, method := range []string{http.MethodPost, http.MethodPut, http.MethodDelete} {
		rec := httptest.NewRecorder()
		newTestService(0).handler().ServeHTTP(rec, httptest.NewRequest(method, "/stock", nil))
		if rec.Code != http.StatusMethodNotAllowed {
			t.Errorf("%s /stock: got %d, want 405 (put the method in the route's pattern)", method, rec.Code)
		}
	}
}

func TestDelay(t *testing.T) {
	t.Run("waits its delay", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			const delay = 2500 * time.Millisecond
			done := startRequest(t, t.Context(), newTestService(delay).handler(), http.MethodGet)
			time.Sleep(delay - time.Nanosecond)
			synctest.Wait()
			if _, ok := returned(done); ok {
				t.Fatalf("GET /stock answered after %v, want after %v (wait on a time.NewTimer)", delay-time.Nanosecond, delay)
			}
			time.Sleep(time.Nanosecond)
			synctest.Wait()
			if rec, ok := returned(done); !ok {
				t.Fatalf("GET /stock: no answer after its delay of %v, want one then", delay)
			} else if got := delayOf(t, rec); got != 2500 {
				t.Errorf(`GET /stock after 2.5s: got "delay": %d, want 2500 (Duration.Milliseconds)`, got)
			}
		})
	})

	t.Run("one draw per request", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			draws := 0 // the requests run one after the other
			svc := newStockService(func() time.Duration { draws++; return time.Second }, slog.New(slog.DiscardHandler))
			for range 3 {
				<-startRequest(t, t.Context(), svc.handler(), http.MethodGet)
			}
			if draws != 3 {
				t.Errorf("3 requests: got %d calls of s.delay(), want 3 (one per request)", draws)
			}
		})
	})

	t.Run("uniformDelay", func(t *testing.T) {
		const maxDelay = 10 * time.Second
		draw := uniformDelay(maxDelay)
		lo, hi := maxDelay, time.Duration(-1)
		for range 1000 {
			d := draw()
			if d < 0 || d >= maxDelay {
				t.Fatalf("uniformDelay(10s)() = %v, want a delay in [0, 10s) (math/rand/v2 N)", d)
			}
			lo, hi = min(lo, d), max(hi, d)
		}
		if lo >= maxDelay/10 || hi < maxDelay*9/10 {
			t.Errorf("1000 draws of uniformDelay(10s): got [%v, %v], want spread over [0, 10s) (a new draw each call)", lo, hi)
		}
		defer func() {
			if p := recover(); p != nil {
				t.Errorf("uniformDelay(0)() panicked (%v), want 0 (rand.N panics on 0)", p)
			}
		}()
		if d := uniformDelay(0)(); d != 0 {
			t.Errorf("uniformDelay(0)() = %v, want 0", d)
		}
	})
}

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
	// Wait for the handler while virtual time still runs, so that one that
	// ignores its caller fails an assertion instead of deadlocking the test.
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

// delayOf decodes the "delay" of a 200 from GET /stock.
func delayOf(t *testing.T, rec *httptest.ResponseRecorder) int64 {
	t.Helper()
	var body struct{ Delay int64 }
	if err := json.Unmarshal(rec.Body.Bytes(), &body); rec.Code != http.StatusOK || err != nil {
		t.Fatalf("GET /stock: got %d %s, want 200 and JSON", rec.Code, rec.Body)
	}
	return body.Delay
}
