package main

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"testing/synctest"
	"time"

	"github.com/icecreamcorp/go-cancellation-workshop/internal/leakcheck"
	"github.com/icecreamcorp/go-cancellation-workshop/internal/runtest"
)

// counters is the "stock" object of GET /debug/vars.
type counters struct {
	Started, Completed, Abandoned int64
	InFlight                      int64 `json:"in_flight"`
	Connections                   int64
}

// readCounters asks h for GET /debug/vars and returns the service's counters.
func readCounters(t *testing.T, h http.Handler) counters {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/debug/vars", nil))
	var vars struct{ Stock *counters }
	if err := json.Unmarshal(rec.Body.Bytes(), &vars); err != nil || vars.Stock == nil {
		t.Fatalf("GET /debug/vars: got %d %s, want 200 and JSON with a \"stock\" object", rec.Code, rec.Body)
	}
	return *vars.Stock
}

func TestCounters(t *testing.T) {
	t.Run("requests", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			const delay = 5 * time.Second
			h := newTestService(delay).handler()
			leaving, leave := context.WithCancel(t.Context())
			defer leave()
			done := []<-chan *httptest.ResponseRecorder{
				startRequest(t, t.Context(), h, http.MethodGet),
				startRequest(t, t.Context(), h, http.MethodGet),
				startRequest(t, leaving, h, http.MethodGet),
			}
			check := func(when string, want counters, fix string) {
				if got := readCounters(t, h); got != want {
					t.Fatalf("%s: got %+v, want %+v (%s)", when, got, want, fix)
				}
			}
			synctest.Wait()
			check("3 requests waiting", counters{Started: 3, InFlight: 3}, "Add(1) to both as the handler starts")
			leave()
			synctest.Wait()
			check("1 caller of 3 left", counters{Started: 3, InFlight: 2, Abandoned: 1}, "defer lowering in_flight")
			time.Sleep(delay)
			for _, d := range done {
				<-d
			}
			check("2 answered 1 left", counters{Started: 3, Completed: 2, Abandoned: 1}, "count completed after answering")
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
		// A third connection asks. The server accepts connections in order,
		// so the first two have been counted by then.
		_, body := srv.Get(t, "/debug/vars")
		var vars struct{ Stock counters }
		json.Unmarshal([]byte(body), &vars)
		if got := vars.Stock.Connections; got != 3 {
			t.Errorf("3 connections: got \"connections\": %d, want 3 (count http.StateNew in connState)", got)
		}
	})
}
