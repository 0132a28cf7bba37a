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
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// counters is the "stock" object of GET /debug/vars.
type counters struct {
	Started     int64 `json:"started"`
	Completed   int64 `json:"completed"`
	Abandoned   int64 `json:"abandoned"`
	InFlight    int64 `json:"in_flight"`
	Connections int64 `json:"connections"`
}

// readCounters asks h for GET /debug/vars and returns the service's counters.
func readCounters(t testing.TB, h http.Handler) counters {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/debug/vars", nil))
	require.Equal(t, http.StatusOK, rec.Code, "GET /debug/vars answered %d %s; want 200", rec.Code, rec.Body.String())
	var vars struct {
		Stock *counters `json:"stock"`
	}
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &vars), "GET /debug/vars answered %q; want JSON", rec.Body.String())
	require.NotNil(t, vars.Stock, "GET /debug/vars has no \"stock\" object: %s", rec.Body.String())
	return *vars.Stock
}

func TestCounters(t *testing.T) {
	t.Run("shows requests started, in flight, completed and abandoned on /debug/vars", func(t *testing.T) {
		leakcheck.Check(t)
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
			synctest.Wait()
			assert.Equal(t, counters{Started: 3, InFlight: 3}, readCounters(t, h),
				"three requests are waiting their delay; want started 3 and in_flight 3 (task 4: count with expvar.Int Add when the handler starts, and undo in_flight when it returns)")

			leave() // the third caller goes away
			synctest.Wait()
			assert.Equal(t, counters{Started: 3, InFlight: 2, Abandoned: 1}, readCounters(t, h),
				"one caller of three went away; want abandoned 1 and in_flight 2 (task 3 counts abandoned; task 4: in_flight goes down however the handler returns)")

			time.Sleep(delay)
			for _, d := range done {
				<-d
			}
			assert.Equal(t, counters{Started: 3, InFlight: 0, Completed: 2, Abandoned: 1}, readCounters(t, h),
				"two requests answered and one abandoned; want completed 2, abandoned 1, in_flight 0 (task 4: count completed after answering)")
		})
	})

	t.Run("counts the connections the server accepts", func(t *testing.T) {
		leakcheck.Check(t)
		svc := newTestService(0)
		srv := httptest.NewUnstartedServer(svc.handler())
		srv.Config.ConnState = svc.connState // as run does in main.go
		srv.Start()
		t.Cleanup(srv.Close)

		for range 2 { // two clients that connect and leave without asking anything
			conn, err := net.Dial("tcp", srv.Listener.Addr().String())
			require.NoError(t, err, "dialling the test server on loopback")
			require.NoError(t, conn.Close(), "hanging up")
		}
		// A third connection asks for the counters. The server accepts
		// connections in order, so the first two have been counted by then.
		client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 10 * time.Second}
		resp, err := client.Get(srv.URL + "/debug/vars")
		require.NoError(t, err, "GET /debug/vars on a real connection")
		defer resp.Body.Close()
		var vars struct{ Stock counters }
		require.NoError(t, json.NewDecoder(resp.Body).Decode(&vars), "decoding GET /debug/vars")
		assert.Equal(t, int64(3), vars.Stock.Connections,
			"\"connections\" is %d after 3 connections; want 3 (task 4: count http.StateNew in connState)", vars.Stock.Connections)
	})
}
