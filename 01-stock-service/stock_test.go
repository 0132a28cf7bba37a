package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"maps"
	"mime"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/icecreamcorp/go-cancellation-workshop/internal/leakcheck"
	"github.com/icecreamcorp/go-cancellation-workshop/internal/memnet"
	"github.com/icecreamcorp/go-cancellation-workshop/internal/runtest"
)

// GET /stock answers 200 with a JSON object: the flavours, and the delay
// it waited in milliseconds (0 here).
func Example_getStock() {
	noDelay := func() time.Duration { return 0 }
	svc := newStockService(noDelay, slog.New(slog.DiscardHandler))
	h := http.TimeoutHandler(svc.handler(), time.Second, "no answer within 1s")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/stock", nil))
	media, _, _ := mime.ParseMediaType(rec.Result().Header.Get("Content-Type"))
	fmt.Println(rec.Code, media)
	var fields map[string]any
	if err := json.Unmarshal(rec.Body.Bytes(), &fields); err != nil {
		fmt.Printf("%s\n", bytes.TrimSpace(rec.Body.Bytes()))
	}
	for _, k := range slices.Sorted(maps.Keys(fields)) {
		if list, ok := fields[k].([]any); ok { // a list: an item a line
			fmt.Printf("%s: %d items\n", k, len(list))
			for _, item := range list {
				v, _ := json.Marshal(item)
				fmt.Printf("  %s\n", v)
			}
			continue
		}
		v, _ := json.Marshal(fields[k])
		fmt.Printf("%s: %s\n", k, v)
	}
	// Output:
	// 200 application/json
	// delay: 0
	// stock: 3 items
	//   {"id":"cf93d53f-7f60-4c9d-a543-ef217a09269b","name":"Cookies 'n' Cream","stock":8532}
	//   {"id":"41373bb6-e6fb-4606-8f01-1cd24e228939","name":"Neopolitan","stock":0}
	//   {"id":"8e884a8d-ae04-4518-80b7-377ee5bcecc6","name":"Pistachio","stock":6437}
}

func TestStockResponse(t *testing.T) {
	for _, method := range []string{http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete} {
		rec := httptest.NewRecorder()
		newTestService(0).handler().ServeHTTP(rec, httptest.NewRequest(method, "/stock", nil))
		if allow, stock := rec.Header().Get("Allow"), bytes.Contains(rec.Body.Bytes(), []byte("Pistachio")); rec.Code != http.StatusMethodNotAllowed || allow == "" || stock {
			t.Errorf("%s /stock: got %d, Allow %q, stock %v; want 405, an Allow header, no stock (put the method in the route's pattern)", method, rec.Code, allow, stock)
		}
	}
}

func TestDelay(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const delay = 2500*time.Millisecond + 300*time.Microsecond // the whole delay: not 2500ms, not 2600ms
		var draws atomic.Int64
		h := newStockService(func() time.Duration { draws.Add(1); return delay }, slog.New(slog.DiscardHandler)).handler()
		a, _ := get(t, h)
		b, _ := get(t, h)
		time.Sleep(delay - time.Nanosecond)
		synctest.Wait()
		if len(a) > 0 {
			t.Fatalf("GET /stock answered before its %v delay was up (seen at %v), want it to wait the whole delay (time.NewTimer(delay))", delay, delay-time.Nanosecond)
		}
		time.Sleep(time.Nanosecond)
		synctest.Wait()
		for _, done := range []<-chan *httptest.ResponseRecorder{a, b} {
			var body struct{ Delay int64 }
			if len(done) == 0 {
				t.Fatalf("GET /stock: no answer after its delay of %v, want one then", delay)
			} else if rec := <-done; rec.Code != http.StatusOK || json.Unmarshal(rec.Body.Bytes(), &body) != nil || body.Delay != 2500 {
				t.Fatalf(`GET /stock after %v: got %d %s, want 200 and "delay": 2500 (Duration.Milliseconds)`, delay, rec.Code, rec.Body)
			}
		}
		if n := draws.Load(); n != 2 {
			t.Errorf("2 requests: got %d calls of s.delay(), want 2 (one per request)", n)
		}
	})
}

func TestCallerGoesAway(t *testing.T) {
	t.Run("one caller of two leaves", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			svc := newTestService(10 * time.Second)
			stays, _ := get(t, svc.handler())
			leaves, leave := get(t, svc.handler())
			time.Sleep(3 * time.Second)
			synctest.Wait()
			if len(leaves) > 0 {
				t.Fatalf("GET /stock answered 3s into a 10s delay, want it still waiting (wait on the timer; a select with no default)")
			}
			leave()
			synctest.Wait()
			if len(leaves) == 0 {
				t.Fatalf("GET /stock still waiting after its caller left, want it to return at once (select on the timer and r.Context().Done())")
			} else if rec := <-leaves; rec.Code != http.StatusOK || rec.Body.Len() > 0 {
				t.Errorf("GET /stock answered %d %q after its caller left, want nothing written (return)", rec.Code, rec.Body)
			}
			if rec := <-stays; rec.Code != http.StatusOK || rec.Body.Len() == 0 {
				t.Errorf("GET /stock of the caller who stayed: got %d %q, want 200 and the stock after 10s", rec.Code, rec.Body)
			}
			if got := svc.abandoned.Value(); got != 1 {
				t.Errorf("1 caller of 2 left: got abandoned %d, want 1 (s.abandoned.Add when r.Context().Done() wins)", got)
			}
		})
	})

	// A real http.Server (over in-memory connections): a client that gives up
	// closes its connection, and net/http cancels r.Context().
	t.Run("client hangs up", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			svc := newTestService(10 * time.Second)
			srv := memnet.Serve(t, svc.handler())
			if resp, err := srv.Client().Get(srv.URL + "/stock"); err == nil { // one client waits the 10s
				resp.Body.Close() // and net/http then ends its r.Context(): not an abandoned request
			}
			ctx, hangUp := context.WithTimeout(t.Context(), time.Second) // like curl --max-time 1
			defer hangUp()
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/stock", nil)
			srv.Client().Do(req)
			synctest.Wait()
			if got := svc.abandoned.Value(); got != 1 {
				t.Errorf("1 HTTP client of 2 hung up 1s into a 10s delay: got abandoned %d, want 1 at once (count it where r.Context().Done() wins the select)", got)
			}
		})
	})
}

// counters is the "stock" object of GET /debug/vars.
type counters struct {
	Started, Completed, Abandoned int64
	InFlight                      int64 `json:"in_flight"`
	Connections                   int64
}

func TestCounters(t *testing.T) {
	t.Run("requests", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			h := newTestService(5 * time.Second).handler()
			get(t, h)
			get(t, h)
			_, leave := get(t, h)
			check := func(when string, want counters) {
				synctest.Wait()
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/debug/vars", nil))
				var vars struct{ Stock counters }
				json.Unmarshal(rec.Body.Bytes(), &vars)
				got := vars.Stock
				for _, f := range []struct {
					name      string
					got, want int64
					fix       string
				}{ // the fix for the first counter that is wrong
					{"started", got.Started, want.Started, "s.started.Add(1) as the handler starts"},
					{"in_flight", got.InFlight, want.InFlight, "s.inFlight.Add(1) as the handler starts, and defer lowering it"},
					{"abandoned", got.Abandoned, want.Abandoned, "s.abandoned.Add(1) when r.Context().Done() wins"},
					{"completed", got.Completed, want.Completed, "s.completed.Add(1) once the answer is written, and only then"},
					{"connections", got.Connections, want.Connections, "connections are counted by the server's ConnState, not here"},
				} {
					if f.got != f.want {
						t.Fatalf("%s: %s %d, want %d (%s)", when, f.name, f.got, f.want, f.fix)
					}
				}
			}
			check("3 requests waiting", counters{Started: 3, InFlight: 3})
			leave()
			check("1 caller of 3 left", counters{Started: 3, InFlight: 2, Abandoned: 1})
			time.Sleep(5 * time.Second)
			check("2 answered 1 left", counters{Started: 3, Completed: 2, Abandoned: 1})
		})
	})

	t.Run("connections", func(t *testing.T) {
		leakcheck.Check(t)
		srv := runtest.Start(t, run, "-max-delay", "0s") // run sets the server's ConnState to s.connState
		for range 2 {                                    // two clients that connect and leave without asking anything
			conn, err := net.Dial("tcp", srv.Addr)
			if err != nil {
				t.Fatal(err)
			}
			conn.Close()
		}
		_, body := srv.Get(t, "/debug/vars") // accepted after the first two, which are counted by then
		var vars struct{ Stock counters }
		if json.Unmarshal([]byte(body), &vars); vars.Stock.Connections != 3 {
			t.Errorf("3 connections: got \"connections\": %d, want 3 (count http.StateNew in connState)", vars.Stock.Connections)
		}
	})
}

// newTestService returns a stock service that logs nothing and whose every request waits delay.
func newTestService(delay time.Duration) *stockService {
	return newStockService(func() time.Duration { return delay }, slog.New(slog.DiscardHandler))
}

// get serves GET /stock through h on its own goroutine, as net/http would;
// done yields the response once the handler has returned (len(done) says if
// it has); leave cancels the request's context. The test's end waits for the
// handler in virtual time: one that ignores its caller fails, not deadlocks.
func get(t *testing.T, h http.Handler) (done <-chan *httptest.ResponseRecorder, leave context.CancelFunc) {
	ctx, leave := context.WithCancel(t.Context())
	result, finished := make(chan *httptest.ResponseRecorder, 1), make(chan struct{})
	go func() {
		defer close(finished)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequestWithContext(ctx, http.MethodGet, "/stock", nil))
		result <- rec
	}()
	t.Cleanup(func() { <-finished })
	return result, leave
}
