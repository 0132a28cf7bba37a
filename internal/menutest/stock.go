// Package menutest holds what the menu steps' tests share: a fake stock
// service wired to an in-process client, ways to call GET /menu and watch it
// in virtual time, and checks of the menu's answers.
//
// Each menu step (02, 03, 05) tests its own menuService; the scaffolding
// around it lives here once, so that a learner reads the same words in every
// step and a fix reaches them all.
package menutest

import (
	"io"
	"net"
	"net/http"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/icecreamcorp/go-cancellation-workshop/internal/fakestock"
	"github.com/icecreamcorp/go-cancellation-workshop/internal/inproc"
)

// StockURL is the stock URL the menu is given in tests. The in-process
// transport ignores the host: every request goes to the fake.
const StockURL = "http://stock.test/stock"

// Stock is a fake stock service reached through an in-process transport, so
// that tests run inside a synctest bubble, in virtual time.
type Stock struct {
	*fakestock.Service
	transport *inproc.Transport

	mu     sync.Mutex
	bodies []io.Closer
}

// NewStock returns a fake stock service that plays replies, for a test inside
// a synctest bubble.
//
// When the test ends, even by failing half-way, it lets a minute of virtual
// time pass, so that the fake and the menu finish whatever they were doing,
// then closes any response body the menu left open (a fake still writing a
// large body to nobody would block forever). A synctest bubble whose test
// returns while its goroutines wait would crash the test binary instead of
// letting the test report what went wrong.
func NewStock(t testing.TB, replies ...fakestock.Reply) *Stock {
	t.Helper()
	fake := fakestock.New(replies...)
	s := ServeStock(t, fake, fake)
	t.Cleanup(Settle) // cleanups run last-in, first-out: Settle first
	return s
}

// ServeStock returns a fake stock service that the menu reaches through h, a
// handler that wraps fake (see HoldUntil), in real or virtual time. When the
// test ends, it closes any response body the menu left open.
func ServeStock(t testing.TB, fake *fakestock.Service, h http.Handler) *Stock {
	t.Helper()
	s := &Stock{Service: fake, transport: inproc.New(h)}
	t.Cleanup(s.closeBodies)
	return s
}

// Settle lets a minute of virtual time pass, and everything come to rest.
// Call it only inside a synctest bubble.
func Settle() {
	time.Sleep(time.Minute)
	synctest.Wait()
}

// closeBodies closes every response body the fake handed out.
func (s *Stock) closeBodies() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, b := range s.bodies {
		b.Close() // closing twice is harmless
	}
}

// Client is the http.Client to give the menu.
func (s *Stock) Client() *http.Client { return &http.Client{Transport: s} }

// RoundTrip serves req with the fake and remembers the body it hands out.
func (s *Stock) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := s.transport.RoundTrip(req)
	if err == nil {
		s.mu.Lock()
		s.bodies = append(s.bodies, resp.Body)
		s.mu.Unlock()
	}
	return resp, err
}

// OpenBodies is how many response bodies the menu received and did not close.
func (s *Stock) OpenBodies() int { return s.transport.OpenBodies() }

// HoldUntil holds every request at the door until release is closed (or the
// caller leaves), then lets h answer it. A test can then let the menu give up
// first whatever the machine's speed, and only then let the stock answer.
func HoldUntil(release <-chan struct{}, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
		h.ServeHTTP(w, r)
	})
}

// ClosedPortURL returns a stock URL on 127.0.0.1 where nothing listens: a
// port that was free a moment ago, so connecting to it is refused.
func ClosedPortURL(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err, "finding a free port on 127.0.0.1")
	addr := ln.Addr().String()
	require.NoError(t, ln.Close(), "closing the free port")
	return "http://" + addr + "/stock"
}
