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
