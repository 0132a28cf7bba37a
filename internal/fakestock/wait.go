package fakestock

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// Await waits until at least n requests have ended, for at most within (in
// the test's clock: virtual inside a synctest bubble, real outside), and
// returns the calls. It fails the test, saying what it was waiting for,
// if they have not ended by then.
//
// Await is for tests on real sockets. Inside a synctest bubble, call
// synctest.Wait and then Calls: the bubble knows exactly when the fake is
// done. Call it from the test's goroutine only, as t.Fatal.
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

// Loopback serves h on a real TCP socket at 127.0.0.1 on a free port, for the
// tests whose point is the real network. It returns the stock URL
// (http://127.0.0.1:PORT/stock) and a client with a fresh http.Transport of
// its own. Both are closed when the test ends, and so are the connections of
// requests still running; call leakcheck.Check before Loopback so that the
// leak check runs after they are closed.
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
