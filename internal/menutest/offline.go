package menutest

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/url"
	"strings"
)

// ErrNotTheGivenClient is what a menu gets when it calls the tests' stock
// service without the client it was given: with http.Get, http.DefaultClient
// or an http.Client of its own, which all go through http.DefaultTransport.
var ErrNotTheGivenClient = errors.New("menutest: use the client the menu was given; http.DefaultTransport cannot reach the tests' stock service")

// Every test binary that imports menutest gets an http.DefaultTransport that
// refuses hosts under .test (a top-level domain reserved for testing, RFC
// 2606), such as StockURL's, with ErrNotTheGivenClient, at once and without
// a DNS lookup. Without it, a menu that reached past its client would look
// the name up for real, and a lookup inside a synctest bubble crashes the
// whole test binary ("send on synctest channel from outside bubble": the
// resolver is shared by the process); with it, the menu answers 502 and the
// test can say which client to use. Every other host is dialled as before:
// the tests on loopback sockets are not affected.
func init() {
	tr, ok := http.DefaultTransport.(*http.Transport)
	if !ok {
		return // somebody replaced it: nothing to guard
	}
	dial, proxy := tr.DialContext, tr.Proxy
	if dial == nil {
		dial = (&net.Dialer{}).DialContext
	}
	tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		if host, _, err := net.SplitHostPort(addr); err == nil && isTestHost(host) {
			return nil, &net.OpError{Op: "dial", Net: network, Err: ErrNotTheGivenClient}
		}
		return dial(ctx, network, addr)
	}
	tr.Proxy = func(req *http.Request) (*url.URL, error) {
		if isTestHost(req.URL.Hostname()) || proxy == nil {
			return nil, nil // never through a proxy: the dial above must see the host
		}
		return proxy(req)
	}
}

// isTestHost reports whether host is under the reserved .test domain.
func isTestHost(host string) bool {
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	return host == "test" || strings.HasSuffix(host, ".test")
}
