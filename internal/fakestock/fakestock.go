// Package fakestock is a scripted stand-in for the stock service: each
// request gets the next Reply of a script, and the fake records what became
// of it (completed, abandoned, dropped) and when, in the test's clock:
// virtual inside a synctest bubble (serve it with memnet), real with Loopback.
package fakestock

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"
)

// Reply scripts how the fake answers one request.
type Reply struct {
	// Delay is how long the fake works before it answers (or hangs up).
	// It gives up as soon as the caller goes away.
	Delay time.Duration
	// Status is the status code to answer with; 0 means 200.
	Status int
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

func (c Call) String() string {
	return fmt.Sprintf("request %d %s after %v", c.N, c.Outcome, c.Took())
}

// Service is the fake stock service. Create it inside the bubble that uses it.
type Service struct {
	script []Reply

	mu       sync.Mutex
	started  int
	calls    []Call
	inFlight int
	changed  chan struct{} // closed and replaced each time a request starts or ends
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
	return s.inFlight
}

func (s *Service) begin() (n int, r Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.started++
	s.inFlight++
	n = s.started
	s.broadcast()
	return n, s.script[min(n, len(s.script))-1]
}

func (s *Service) end(c Call) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.inFlight--
	s.calls = append(s.calls, c)
	s.broadcast()
}

// broadcast wakes every Await; s.mu is held.
func (s *Service) broadcast() {
	close(s.changed)
	s.changed = make(chan struct{})
}

// ServeHTTP answers one request as the script says and records the outcome.
func (s *Service) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	n, reply := s.begin()
	started := time.Now()
	outcome := serve(w, r, reply)
	s.end(Call{N: n, Reply: reply, Started: started, Ended: time.Now(), Outcome: outcome})
	if outcome == Dropped {
		// net/http closes the connection without a response, and logs nothing.
		panic(http.ErrAbortHandler)
	}
}

// serve plays one Reply and says how it ended.
func serve(w http.ResponseWriter, r *http.Request, reply Reply) Outcome {
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

	w.Header().Set("Content-Type", "application/json")
	status := reply.Status
	if status == 0 {
		status = http.StatusOK
	}
	if reply.StallBody {
		w.WriteHeader(status)
		io.WriteString(w, `{"stock":[`)
		http.NewResponseController(w).Flush() //nolint:errcheck // a caller gone shows below
		<-r.Context().Done()
		return Abandoned
	}

	var body io.Reader
	switch {
	case reply.Size > 0:
		body = padded(reply.Size)
	case reply.Body != "":
		body = strings.NewReader(reply.Body)
	default:
		body = strings.NewReader(StockJSON(reply.Delay))
	}
	w.WriteHeader(status)
	if _, err := io.Copy(w, body); err != nil {
		return Abandoned // the caller hung up while we were writing
	}
	return Completed
}
