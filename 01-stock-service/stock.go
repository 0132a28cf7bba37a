package main

import (
	"encoding/json"
	"expvar"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"
)

// flavour is one line of the stock list, as the menu service will read it.
type flavour struct {
	ID    string `json:"id"`
	Name  string `json:"name"`
	Stock int    `json:"stock"`
}

// flavours are the three flavours of the talk, with its ids.
//
//lint:ignore U1000 task 1 puts them in the answer
var flavours = []flavour{
	{ID: "cf93d53f-7f60-4c9d-a543-ef217a09269b", Name: "Cookies 'n' Cream", Stock: 8532},
	{ID: "41373bb6-e6fb-4606-8f01-1cd24e228939", Name: "Neopolitan", Stock: 0},
	{ID: "8e884a8d-ae04-4518-80b7-377ee5bcecc6", Name: "Pistachio", Stock: 6437},
}

// TODO(task 1): describe the body of a 200 with a struct, say stockResponse,
// whose json tags give {"stock": [...the flavours...], "delay": <milliseconds>}.
// See encoding/json Marshal.

// errorBody is the body of every answer that is not a 200. Only the 501 stub
// below uses it: delete it with the stub once task 1 is done.
type errorBody struct {
	Error string `json:"error"`
}

// stockService is the Unpredictable Stock Service. Its counters belong to
// the value, not to the process: tests create as many services as they like.
type stockService struct {
	delay func() time.Duration // how long the next request waits; random outside tests
	log   *slog.Logger

	started, completed, abandoned, inFlight, connections expvar.Int
	vars                                                 expvar.Map // the counters above, by name
}

// newStockService returns a service whose requests each wait delay().
func newStockService(delay func() time.Duration, log *slog.Logger) *stockService {
	s := &stockService{delay: delay, log: log}
	s.vars.Set("started", &s.started)
	s.vars.Set("completed", &s.completed)
	s.vars.Set("abandoned", &s.abandoned)
	s.vars.Set("in_flight", &s.inFlight)
	s.vars.Set("connections", &s.connections)
	return s
}

// handler routes the service's two endpoints.
func (s *stockService) handler() http.Handler {
	mux := http.NewServeMux()
	// TODO(task 1): answer GET only, and let the mux refuse other methods with
	// 405. See net/http ServeMux, its patterns.
	mux.HandleFunc("/stock", s.handleStock)
	mux.HandleFunc("GET /debug/vars", s.handleVars)
	return mux
}

// uniformDelay returns a function that draws delays uniformly from [0, maxDelay).
func uniformDelay(maxDelay time.Duration) func() time.Duration {
	// TODO(task 2): draw a random delay in [0, maxDelay) on each call, safely
	// from many goroutines at once, and 0 when maxDelay is 0. See math/rand/v2 N.
	return func() time.Duration { return 0 }
}

// handleStock answers GET /stock after a random delay, unless the caller
// goes away first.
func (s *stockService) handleStock(w http.ResponseWriter, r *http.Request) {
	// TODO(task 4): count the request in s.started, and in s.inFlight for as
	// long as the handler runs, however it returns. See expvar Int.Add.

	// TODO(task 2): draw this request's delay with s.delay() and wait for it
	// on a timer you can stop. See time.NewTimer.

	// TODO(task 3): give up as soon as the caller goes away: wait on
	// r.Context().Done() as well as the timer, count the request in
	// s.abandoned, and stop the timer. See net/http Request.Context and select.

	// TODO(task 1): answer 200 with the stock list and the delay in
	// milliseconds, using writeJSON. See time Duration.Milliseconds.

	// TODO(task 4): count the answered request in s.completed.

	writeJSON(w, http.StatusNotImplemented, errorBody{
		Error: "GET /stock is not written yet: start with task 1 in 01-stock-service/README.md",
	})
}

// connState is the http.Server's ConnState hook (main.go sets it): it sees
// each connection change state, starting with http.StateNew.
func (s *stockService) connState(_ net.Conn, state http.ConnState) {
	// TODO(task 4): count each new connection in s.connections. See net/http ConnState.
}

// handleVars serves GET /debug/vars in the format of expvar.Handler: the
// process's published variables (cmdline, memstats) plus this service's
// counters under "stock". expvar.Publish would make them global, and it
// panics when a name is published twice — as soon as a second service is
// created, in a test or in the load-test lab.
func (s *stockService) handleVars(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	fmt.Fprintf(w, "{\n")
	expvar.Do(func(kv expvar.KeyValue) {
		fmt.Fprintf(w, "%q: %s,\n", kv.Key, kv.Value)
	})
	fmt.Fprintf(w, "%q: %s\n}\n", "stock", &s.vars)
}

// writeJSON answers with status and v encoded as JSON.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	// After WriteHeader the status is sent; an encoding error (a client that
	// left mid-write) cannot change it any more, so there is nothing to do.
	_ = json.NewEncoder(w).Encode(v)
}
