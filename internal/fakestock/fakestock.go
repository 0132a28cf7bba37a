// Package fakestock is a scripted stand-in for the stock service: each
// request gets the next Reply of a script, and the fake records what became
// of it (completed, abandoned, dropped) and when, in the test's clock:
// virtual inside a synctest bubble (serve it with memnet), real with Loopback.
package fakestock

import (
	"cmp"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// Reply scripts how the fake answers one request.
type Reply struct {
	// Delay is how long the fake works before it answers (or hangs up).
	// It gives up as soon as the caller goes away.
	Delay time.Duration
	// Status is the status code to answer with; 0 means 200.
	Status int
	// ContentType is sent as it is; "" means the real service's,
	// application/json; charset=utf-8.
	ContentType string
	// Body is sent as it is; "" means the stock JSON of the real service.
	Body string
	// Size, when positive, sends a valid JSON body of exactly Size bytes,
	// padded with a long string: a body too large for a careful client.
	Size int
	// StallBody sends the status, the headers and the start of the JSON,
	// then waits — without ever finishing the body — until the caller leaves.
	StallBody bool
	// Drop hangs up without a response once Delay has passed.
	Drop bool
}

// Outcome is what became of a request.
type Outcome string

const (
	Completed Outcome = "completed" // the fake wrote its whole answer
	Abandoned Outcome = "abandoned" // the caller went away before the answer was written
	Dropped   Outcome = "dropped"   // the fake hung up, as its Reply said
)

// Call records one request the fake has finished with.
type Call struct {
	N       int       // 1 for the first request the fake received
	Reply   Reply     // what the script said to do
	Started time.Time // when the request arrived
	Ended   time.Time // when the fake finished with it
	Outcome Outcome
}

// Took is how long the fake spent on the request.
func (c Call) Took() time.Duration { return c.Ended.Sub(c.Started) }

func (c Call) String() string { return fmt.Sprintf("request %d %s after %v", c.N, c.Outcome, c.Took()) }

// Service is the fake stock service. Create it inside the bubble that uses it.
type Service struct {
	script []Reply

	mu      sync.Mutex
	started int
	calls   []Call
	changed chan struct{} // closed and replaced each time a request starts or ends
}

// New returns a fake that answers request i with replies[i], then the last
// one again; with no replies, the stock JSON at once.
func New(replies ...Reply) *Service {
	if len(replies) == 0 {
		replies = []Reply{{}}
	}
	return &Service{script: replies, changed: make(chan struct{})}
}

// Calls returns the requests the fake has finished with, in that order.
func (s *Service) Calls() []Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Call(nil), s.calls...)
}

// Started is how many requests have arrived so far.
func (s *Service) Started() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.started
}

// InFlight is how many requests the fake is still working on.
func (s *Service) InFlight() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.started - len(s.calls)
}

// Await returns the calls once at least n requests have ended, or fails the
// test after within. It is for real sockets: in a bubble, synctest.Wait, then Calls.
func (s *Service) Await(t testing.TB, n int, within time.Duration) []Call {
	t.Helper()
	deadline := time.NewTimer(within)
	defer deadline.Stop()
	for {
		s.mu.Lock()
		calls, changed := append([]Call(nil), s.calls...), s.changed
		s.mu.Unlock()
		if len(calls) >= n {
			return calls
		}
		select {
		case <-changed:
		case <-deadline.C:
			t.Fatalf("waited %v for the fake stock service to finish %d request(s); %d finished, %d still in flight: %v",
				within, n, len(calls), s.InFlight(), calls)
			return nil
		}
	}
}

// record runs f under the lock and wakes every Await.
func (s *Service) record(f func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f()
	close(s.changed)
	s.changed = make(chan struct{})
}

// ServeHTTP answers one request as the script says and records the outcome.
func (s *Service) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	c := Call{Started: time.Now()}
	s.record(func() {
		s.started++
		c.N, c.Reply = s.started, s.script[min(s.started, len(s.script))-1]
	})
	c.Outcome = serve(w, r, c.Reply)
	c.Ended = time.Now()
	s.record(func() { s.calls = append(s.calls, c) })
	if c.Outcome == Dropped {
		panic(http.ErrAbortHandler) // net/http closes the connection without a response, and logs nothing
	}
}

// routes is the real stock service's route (step 01's ServeMux): "GET
// /stock", which HEAD matches too.
var routes = func() *http.ServeMux {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /stock", func(http.ResponseWriter, *http.Request) {})
	return mux
}()

// serve plays one Reply and says how it ended.
func serve(w http.ResponseWriter, r *http.Request, reply Reply) Outcome {
	if _, pattern := routes.Handler(r); pattern == "" {
		routes.ServeHTTP(w, r) // a 404, or a 405 with Allow, as the real service answers
		return Completed
	}
	timer := time.NewTimer(reply.Delay)
	defer timer.Stop()
	select {
	case <-timer.C:
	case <-r.Context().Done():
		return Abandoned
	}
	if reply.Drop {
		return Dropped
	}
	w.Header().Set("Content-Type", cmp.Or(reply.ContentType, "application/json; charset=utf-8"))
	w.WriteHeader(cmp.Or(reply.Status, http.StatusOK))
	if reply.StallBody {
		io.WriteString(w, `{"stock":[`)
		http.NewResponseController(w).Flush() //nolint:errcheck // a caller gone shows below
		<-r.Context().Done()
		return Abandoned
	}
	body := cmp.Or(reply.Body, StockJSON(reply.Delay))
	if reply.Size > 0 {
		const head, tail = `{"stock":[],"padding":"`, `"}`
		body = head + strings.Repeat("x", max(reply.Size-len(head)-len(tail), 0)) + tail
	}
	if _, err := io.WriteString(w, body); err != nil {
		return Abandoned // the caller hung up while we were writing
	}
	return Completed
}

// Loopback serves h on a free port of 127.0.0.1 and returns its stock URL and
// a client of its own, both closed, with any connection, when the test ends.
func Loopback(t testing.TB, h http.Handler) (stockURL string, client *http.Client) {
	t.Helper()
	srv := httptest.NewServer(h)
	tr := &http.Transport{}
	t.Cleanup(func() {
		tr.CloseIdleConnections()
		srv.CloseClientConnections() // a request still running ends, as its caller hangs up
		srv.Close()
	})
	return srv.URL + "/stock", &http.Client{Transport: tr}
}
