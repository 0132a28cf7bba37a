// Package menutest is what the menu steps' tests (02, 03, 05) share: a fake
// stock service over in-memory connections, ways to call GET /menu and watch
// it in virtual time, and checks of the menu's answers.
package menutest

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/icecreamcorp/go-cancellation-workshop/internal/fakestock"
	"github.com/icecreamcorp/go-cancellation-workshop/internal/memnet"
)

// StockURL is the stock URL the menu is given in tests. The client dials
// nothing but the fake, whatever the host.
const StockURL = "http://stock.test/stock"

// Stock is a fake stock service served by a real http.Server over memnet, for
// tests in a synctest bubble.
type Stock struct {
	*fakestock.Service
	server *memnet.Server

	mu     sync.Mutex
	bodies []*body // every response body handed to the menu
}

// NewStock returns a fake stock service that plays replies. When the test
// ends, even half-way, it Settles, then closes the bodies the menu left open:
// a bubble whose goroutines still wait would crash the test binary.
func NewStock(t testing.TB, replies ...fakestock.Reply) *Stock {
	t.Helper()
	fake := fakestock.New(replies...)
	s := ServeStock(t, fake, fake)
	t.Cleanup(Settle) // cleanups run last-in, first-out: Settle first
	return s
}

// ServeStock returns a fake stock service that the menu reaches through h, a
// handler that wraps fake (see HoldUntil).
func ServeStock(t testing.TB, fake *fakestock.Service, h http.Handler) *Stock {
	t.Helper()
	s := &Stock{Service: fake, server: memnet.Serve(t, h)}
	t.Cleanup(s.closeBodies) // before the server closes: cleanups run last-in, first-out
	return s
}

// Settle lets a minute of virtual time pass, and everything come to rest.
func Settle() {
	time.Sleep(time.Minute)
	synctest.Wait()
}

func (s *Stock) closeBodies() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, b := range s.bodies {
		b.Close() // closing twice is harmless
	}
}

// Client is the http.Client to give the menu.
func (s *Stock) Client() *http.Client { return &http.Client{Transport: s} }

// Close stops the fake at once, as a stock service that crashed would.
func (s *Stock) Close() error { return s.server.Close() }

// RoundTrip sends req to the fake and keeps the body it hands out.
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

type body struct {
	io.ReadCloser
	closed atomic.Bool
}

func (b *body) Close() error {
	b.closed.Store(true)
	return b.ReadCloser.Close()
}

// HoldUntil holds every request until release is closed (or the caller
// leaves), then lets h answer it: the menu gives up first, whatever the speed.
func HoldUntil(release <-chan struct{}, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
		h.ServeHTTP(w, r)
	})
}

// ClosedPortURL returns a stock URL on a port of 127.0.0.1 that was free a
// moment ago: connecting to it is refused.
func ClosedPortURL(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("finding a free port on 127.0.0.1: %v", err)
	}
	ln.Close()
	return "http://" + ln.Addr().String() + "/stock"
}

// ErrNotTheGivenClient is what a menu gets when it reaches StockURL through
// http.DefaultTransport (http.Get, DefaultClient, a client of its own).
var ErrNotTheGivenClient = errors.New("menutest: use the client the menu was given; http.DefaultTransport cannot reach the tests' stock service")

// Main runs a menu step's tests while http.DefaultTransport refuses hosts
// under .test (RFC 2606) at once: a real DNS lookup inside a synctest bubble
// ties the resolver to it, and the next test's lookup crashes the binary
// ("send on synctest channel from outside bubble"). The menu answers 502 instead.
func Main(m *testing.M) {
	restore := guardDefaultTransport()
	code := m.Run()
	restore()
	os.Exit(code)
}

// guardDefaultTransport replaces http.DefaultTransport with a clone that
// refuses hosts under .test, and returns a func that puts the original back.
func guardDefaultTransport() (restore func()) {
	orig := http.DefaultTransport
	tr, ok := orig.(*http.Transport)
	if !ok {
		return func() {} // somebody replaced it: nothing to guard
	}
	guarded := tr.Clone() // still an *http.Transport: main.go's Clone of it must work
	dial, proxy := tr.DialContext, tr.Proxy
	if dial == nil {
		dial = (&net.Dialer{}).DialContext
	}
	isTest := func(host string) bool {
		host = strings.TrimSuffix(strings.ToLower(host), ".")
		return host == "test" || strings.HasSuffix(host, ".test")
	}
	guarded.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		if host, _, err := net.SplitHostPort(addr); err == nil && isTest(host) {
			return nil, &net.OpError{Op: "dial", Net: network, Err: ErrNotTheGivenClient}
		}
		return dial(ctx, network, addr)
	}
	guarded.Proxy = func(req *http.Request) (*url.URL, error) {
		if isTest(req.URL.Hostname()) || proxy == nil {
			return nil, nil // never through a proxy: the dial above must see the host
		}
		return proxy(req)
	}
	http.DefaultTransport = guarded
	return func() {
		guarded.CloseIdleConnections()
		http.DefaultTransport = orig
	}
}
