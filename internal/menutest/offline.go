package menutest

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"
)

// ErrNotTheGivenClient is what a menu gets when it calls the tests' stock
// service without the client it was given: with http.Get, http.DefaultClient
// or an http.Client of its own, which all go through http.DefaultTransport.
var ErrNotTheGivenClient = errors.New("menutest: use the client the menu was given; http.DefaultTransport cannot reach the tests' stock service")

// Main runs a menu step's tests with http.DefaultTransport guarded, and
// exits with their result. A step opts in with, in its guard_test.go:
//
//	func TestMain(m *testing.M) { menutest.Main(m) }
//
// While the tests run, http.DefaultTransport refuses hosts under .test
// (reserved for testing by RFC 2606), such as StockURL's, at once and without
// a DNS lookup. Otherwise a menu that reached past its client would look the
// name up for real, and the first lookup inside a synctest bubble ties the
// resolver to that bubble: the next test's lookup crashes the whole test
// binary ("fatal error: send on synctest channel from outside bubble"). This
// way the menu answers 502, and the test says which client to use. Other
// hosts are not affected.
func Main(m *testing.M) {
	restore := guardDefaultTransport()
	code := m.Run()
	restore()
	os.Exit(code)
}

// guardDefaultTransport replaces http.DefaultTransport with a clone that
// refuses hosts under .test, and returns a func that puts back the one it
// replaced. The clone, not the original, is changed: a test binary that
// does not call it keeps the standard library's transport untouched.
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
