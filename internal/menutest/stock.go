// Package menutest holds what the menu steps' tests share: a fake stock
// service behind a real http.Server and client over in-memory connections,
// ways to call GET /menu and watch it in virtual time, and checks of the
// menu's answers.
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
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/icecreamcorp/go-cancellation-workshop/internal/fakestock"
	"github.com/icecreamcorp/go-cancellation-workshop/internal/memnet"
)

// StockURL is the stock URL the menu is given in tests. The client dials
// nothing but the fake, whatever the host.
const StockURL = "http://stock.test/stock"

// Stock is a fake stock service served by a real http.Server over in-memory
// connections (internal/memnet), so that tests run inside a synctest bubble,
// in virtual time, and the fake sees what it would see on the wire.
type Stock struct {
	*fakestock.Service
	server *memnet.Server

	mu     sync.Mutex
	bodies []*body // every response body handed to the menu
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
	s := &Stock{Service: fake, server: memnet.Serve(t, h)}
	t.Cleanup(s.closeBodies) // before the server closes: cleanups run last-in, first-out
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

// Client is the http.Client to give the menu: a real http.Transport that
// reaches the fake, wrapped only to count the response bodies it hands out.
func (s *Stock) Client() *http.Client { return &http.Client{Transport: s} }

// Close stops the fake at once, as a stock service that crashed would.
func (s *Stock) Close() error { return s.server.Close() }

// RoundTrip sends req to the fake and remembers the body it hands out.
func (s *Stock) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := s.server.Client().Transport.RoundTrip(req)
	if err == nil {
		b := &body{ReadCloser: resp.Body}
		resp.Body = b
		s.mu.Lock()
		s.bodies = append(s.bodies, b)
		s.mu.Unlock()
	}
	return resp, err
}

// OpenBodies is how many response bodies the menu received and did not close.
func (s *Stock) OpenBodies() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	open := 0
	for _, b := range s.bodies {
		if !b.closed.Load() {
			open++
		}
	}
	return open
}

// body is a response body that knows whether the menu closed it.
type body struct {
	io.ReadCloser
	closed atomic.Bool
}

func (b *body) Close() error {
	b.closed.Store(true)
	return b.ReadCloser.Close()
}

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
