package load

import (
	"context"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// proxy stands between a menu and the stock service and writes down what
// it sees: when each call starts and ends, whether the menu hung up first,
// and how many connections the menu opens. It passes cancellation on: when
// the menu hangs up, the proxy's own call to the stock service is cancelled
// with it (httputil.ReverseProxy gives the upstream request the incoming
// request's context), so the stock service sees what it would have seen
// without the proxy, a few microseconds later.
type proxy struct {
	start time.Time // offsets are from here
	ln    net.Listener
	srv   *http.Server
	tr    *http.Transport

	conns, inFlight atomic.Int64
	used            sync.Map // the connections that carried a request and are open

	mu    sync.Mutex
	calls []call // finished
}

// proxyIdleTimeout is how long the proxy keeps a keep-alive connection that
// waits for its next request, as the stock service does; a variable, for a
// test. During a run the menu's connections are never idle that long.
var proxyIdleTimeout = 30 * time.Second

// startProxy serves a proxy to the stock service at stockAddr on a free
// loopback port. With h2c it speaks HTTP/2 without TLS on both sides, as
// menu v3 and the stock service do with -h2c.
func startProxy(stockAddr string, h2c bool) (*proxy, error) {
	target := &url.URL{Scheme: "http", Host: stockAddr} // the menu's request keeps its path
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &proxy{start: time.Now(), ln: ln}
	p.tr = &http.Transport{MaxIdleConnsPerHost: 1000, MaxIdleConns: 1000}
	if h2c {
		p.tr.Protocols = new(http.Protocols)
		p.tr.Protocols.SetUnencryptedHTTP2(true)
	}
	rp := &httputil.ReverseProxy{
		Rewrite:   func(r *httputil.ProxyRequest) { r.SetURL(target) },
		Transport: p.tr,
		ErrorLog:  log.New(io.Discard, "", 0), // "context canceled", once per cancelled call; it answers 502
	}
	p.srv = &http.Server{
		Handler: p.handler(rp),
		// ReadHeaderTimeout bounds a request's headers; only IdleTimeout
		// closes a keep-alive connection that sends nothing more (net/http),
		// which would otherwise hold its descriptor and goroutine for as long
		// as the proxy runs.
		ReadHeaderTimeout: 5 * time.Second,
		IdleTimeout:       proxyIdleTimeout,
		ErrorLog:          log.New(io.Discard, "", 0),
		// conns counts the connections that carried a request: at the start
		// of a run the menu's transport dials several at once, and over h2c
		// it closes all but one unused.
		ConnState: func(c net.Conn, s http.ConnState) {
			switch s {
			case http.StateActive:
				if _, seen := p.used.LoadOrStore(c, true); !seen {
					p.conns.Add(1)
				}
			case http.StateClosed, http.StateHijacked:
				p.used.Delete(c)
			}
		},
	}
	if h2c {
		p.srv.Protocols = new(http.Protocols)
		p.srv.Protocols.SetHTTP1(true)
		p.srv.Protocols.SetUnencryptedHTTP2(true)
	}
	go p.srv.Serve(ln) //nolint:errcheck // ErrServerClosed after close
	return p, nil
}

// URL is the stock URL to give the menu.
func (p *proxy) URL() string { return "http://" + p.ln.Addr().String() + "/stock" }

func (p *proxy) since() time.Duration { return time.Since(p.start) }

func (p *proxy) handler(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c := call{Start: p.since()}
		p.inFlight.Add(1)
		// r.Context() ends when the menu hangs up: it closed the connection
		// (HTTP/1.1) or reset the stream (HTTP/2). It also ends once this
		// handler returns, which is why the callback is stopped first.
		left := make(chan struct{})
		stop := context.AfterFunc(r.Context(), func() {
			c.Left = max(p.since(), 1) // 0 means "never"
			close(left)
		})
		// Deferred: ReverseProxy panics with http.ErrAbortHandler when it
		// cannot finish the answer, and the call still counts.
		defer func() {
			end := p.since()
			aborted := recover()
			if !stop() {
				<-left // the callback ran, or is running: wait for its write
			}
			// The menu had left by the end if writing to it failed before the
			// server noticed it hung up, or if the callback, which runs on a
			// goroutine of its own, started late.
			if c.Left == 0 && aborted != nil || c.Left > end {
				c.Left = end
			}
			c.End = end
			p.mu.Lock()
			p.calls = append(p.calls, c)
			p.mu.Unlock()
			p.inFlight.Add(-1) // after the append: at 0, every call is in calls
			if aborted != nil {
				panic(aborted) // the server expects it: it closes the connection quietly
			}
		}()
		next.ServeHTTP(w, r)
	})
}

// finished returns the calls finished so far.
func (p *proxy) finished() []call {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.calls)
}

// close stops the proxy at once: the menu using it is already stopped.
func (p *proxy) close() {
	p.srv.Close()
	p.tr.CloseIdleConnections()
}
