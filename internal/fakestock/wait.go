package fakestock

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

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
				within, n, len(s.Calls()), s.InFlight(), s.Calls())
			return nil
		}
	}
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
