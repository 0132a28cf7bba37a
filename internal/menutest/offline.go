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

// init makes http.DefaultTransport refuse hosts under .test (reserved for
// testing by RFC 2606), such as StockURL's, at once and without a DNS lookup.
// Otherwise a menu that reached past its client would look the name up for
// real, and a lookup inside a synctest bubble crashes the whole test binary
// ("send on synctest channel from outside bubble"); this way the menu answers
// 502 and the test says which client to use. Other hosts are not affected.
func init() {
	tr, ok := http.DefaultTransport.(*http.Transport)
	if !ok {
		return // somebody replaced it: nothing to guard
	}
	dial, proxy := tr.DialContext, tr.Proxy
	if dial == nil {
		dial = (&net.Dialer{}).DialContext
	}
	isTest := func(host string) bool {
		host = strings.TrimSuffix(strings.ToLower(host), ".")
		return host == "test" || strings.HasSuffix(host, ".test")
	}
	tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		if host, _, err := net.SplitHostPort(addr); err == nil && isTest(host) {
			return nil, &net.OpError{Op: "dial", Net: network, Err: ErrNotTheGivenClient}
		}
		return dial(ctx, network, addr)
	}
	tr.Proxy = func(req *http.Request) (*url.URL, error) {
		if isTest(req.URL.Hostname()) || proxy == nil {
			return nil, nil // never through a proxy: the dial above must see the host
		}
		return proxy(req)
	}
}
