package main

import (
	"encoding/json"
	"expvar"
	"fmt"
	"log/slog"
	"math/rand/v2"
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
var flavours = []flavour{
	{ID: "cf93d53f-7f60-4c9d-a543-ef217a09269b", Name: "Cookies 'n' Cream", Stock: 8532},
	{ID: "41373bb6-e6fb-4606-8f01-1cd24e228939", Name: "Neopolitan", Stock: 0},
	{ID: "8e884a8d-ae04-4518-80b7-377ee5bcecc6", Name: "Pistachio", Stock: 6437},
}

// stockResponse is the body of a 200 from GET /stock. The json tags are the
// contract with the menu service: {"stock": [...], "delay": 1234}.
type stockResponse struct {
	Stock []flavour `json:"stock"`
	Delay int64     `json:"delay"` // milliseconds this request waited
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
	// The method in the pattern (Go 1.22+) makes the mux answer other methods
	// with 405 and an Allow header, so the handler never checks r.Method.
	mux.HandleFunc("GET /stock", s.handleStock)
	mux.HandleFunc("GET /debug/vars", s.handleVars)
	return mux
}

// uniformDelay returns a function that draws delays uniformly from [0, maxDelay).
func uniformDelay(maxDelay time.Duration) func() time.Duration {
	if maxDelay <= 0 {
		return func() time.Duration { return 0 } // rand.N panics on 0
	}
	// The top-level functions of math/rand/v2 are safe for concurrent use and
	// seeded at random; a shared *rand.Rand would need a mutex, because
	// handlers run on many goroutines at once.
	return func() time.Duration { return rand.N(maxDelay) }
}

// handleStock answers GET /stock after a random delay, unless the caller
// goes away first.
func (s *stockService) handleStock(w http.ResponseWriter, r *http.Request) {
	s.started.Add(1)
	s.inFlight.Add(1)
	defer s.inFlight.Add(-1) // however we leave, this request is no longer in flight

	delay, start := s.delay(), time.Now()
	// time.Sleep(delay) would be shorter, and wrong: nothing can wake a
	// sleeping goroutine, so it would sit out the whole delay for a caller
	// who left long ago. A timer is a channel, and a select can wait on it
	// and on the request's context at once.
	timer := time.NewTimer(delay)
	// Stop says "nobody wants this any more". Before Go 1.23 an unstopped
	// timer stayed in the runtime's timer heap until it fired: up to 10 s of
	// garbage per abandoned request. Since Go 1.23 (this module says go 1.26)
	// an unreferenced timer is collected even if it was never stopped, so
	// forgetting Stop no longer leaks here, but with time.AfterFunc it still
	// means running the function for nobody. Stopping is right in every version.
	// (The one-liner `case <-time.After(delay):` has the same history, and
	// gives you no timer to stop.)
	defer timer.Stop()

	select {
	case <-timer.C:
	case <-r.Context().Done():
		// net/http cancels r.Context() when the client closes its connection
		// (or, for HTTP/2, resets the stream), and when the server closes the
		// connection at the end of a shutdown. Nobody would read an answer
		// now: leave, and let the deferred Stop release the timer.
		s.abandoned.Add(1)
		s.log.Info("request cancelled: stopped waiting", "remote", r.RemoteAddr,
			"waited", time.Since(start).Round(time.Millisecond), "delay", delay.Round(time.Millisecond))
		return
	}

	writeJSON(w, http.StatusOK, stockResponse{Stock: flavours, Delay: delay.Milliseconds()})
	s.completed.Add(1) // after the answer: started = completed + abandoned + in flight
	s.log.Debug("answered", "delay", delay, "remote", r.RemoteAddr)
}

// connState is the http.Server's ConnState hook: it counts connections as
// the server accepts them.
func (s *stockService) connState(_ net.Conn, state http.ConnState) {
	if state == http.StateNew {
		s.connections.Add(1)
	}
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
