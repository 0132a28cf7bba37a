// Package memnet runs a real net/http server and client over in-memory
// connections, so that tests of HTTP code can run inside a testing/synctest
// bubble, where a ten-second delay costs no real time.
//
// Nothing here is a fake of net/http: the server is an *http.Server, the
// client an *http.Transport, and requests and responses cross a net.Pipe as
// HTTP bytes. Only the sockets are in memory, and they look like loopback
// TCP: the server is 127.0.0.1:80, and each connection comes from a port of
// its own (r.RemoteAddr is "127.0.0.1:49152", then 49153…). So the handler
// sees what it would see on the wire: its r.Context() carries no deadline
// and no values of the client's, and it ends with context.Canceled when the
// client gives up. A net.Pipe has no buffer, so a handler writing to a
// client that reads nothing blocks at once, where a socket would first fill its buffers.
//
//	synctest.Test(t, func(t *testing.T) {
//		srv := memnet.Serve(t, handler)
//		resp, err := srv.Client().Get(srv.URL + "/stock")
//		…
//	})
//
// Create the server inside the bubble that uses it. It is closed, with its
// connections, when the test ends.
package memnet

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
)

// Server is a real *http.Server reached through in-memory connections.
type Server struct {
	// URL is the server's base URL, "http://memnet.test". Any host in a
	// request's URL reaches this server: the client dials nothing else.
	URL string

	srv     *http.Server
	tr      *http.Transport
	conns   chan net.Conn // dialled, for Accept
	closed  chan struct{} // closed with the listener
	dialled atomic.Int32  // numbers the clients' ports
	served  chan error    // Serve's result
	once    sync.Once
	err     error
}

// Serve starts a real http.Server, speaking HTTP/1.1, that serves h over
// in-memory connections, and closes it, its connections and its client's idle
// connections when the test ends. A client that gives up on a request closes its connection.
func Serve(t testing.TB, h http.Handler) *Server {
	t.Helper()
	return serve(t, h, nil)
}

// ServeH2C is Serve speaking HTTP/2 with prior knowledge (h2c, no TLS): every
// request of the client is a stream of one connection, and a client that
// gives up on one sends a RST_STREAM frame; the connection lives on.
func ServeH2C(t testing.TB, h http.Handler) *Server {
	t.Helper()
	h2c := new(http.Protocols)
	h2c.SetUnencryptedHTTP2(true)
	return serve(t, h, h2c)
}

func serve(t testing.TB, h http.Handler, protocols *http.Protocols) *Server {
	t.Helper()
	s := &Server{
		URL:    "http://memnet.test",
		srv:    &http.Server{Handler: h, Protocols: protocols},
		conns:  make(chan net.Conn),
		closed: make(chan struct{}),
		served: make(chan error, 1),
	}
	s.tr = &http.Transport{DialContext: s.dial, Protocols: protocols}
	go func() { s.served <- s.srv.Serve((*listener)(s)) }()
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Error(err)
		}
	})
	return s
}

// Close stops the server at once, as a crashed or stopped service would:
// open connections are closed, new ones are refused. Calling it again does nothing.
func (s *Server) Close() error {
	s.once.Do(func() {
		s.tr.CloseIdleConnections()
		s.srv.Close() // closes the listener and every connection
		if err := <-s.served; err != http.ErrServerClosed {
			s.err = fmt.Errorf("memnet: the server stopped with %v; want http.ErrServerClosed", err)
		}
	})
	return s.err
}

// Client returns an http.Client that reaches the server through a real
// http.Transport (one per Server, so connections are kept and reused as
// they would be in production) and has no timeout of its own.
func (s *Server) Client() *http.Client { return &http.Client{Transport: s.tr} }

// Conns is how many connections the client has dialled so far.
func (s *Server) Conns() int { return int(s.dialled.Load()) }

// serverAddr is the server's address, as its listener and every connection say.
var serverAddr = &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 80}

// dial makes a new connection to the server, as a TCP connect would: it
// fails if the server is closed or ctx ends first.
func (s *Server) dial(ctx context.Context, network, addr string) (_ net.Conn, err error) {
	client, server := net.Pipe()
	port := &net.TCPAddr{IP: serverAddr.IP, Port: 49151 + int(s.dialled.Add(1))}
	select {
	case s.conns <- &conn{server, serverAddr, port}:
		return &conn{client, port, serverAddr}, nil
	case <-s.closed:
		err = errors.New("connection refused: the memnet server is closed")
	case <-ctx.Done():
		err = ctx.Err()
	}
	return nil, &net.OpError{Op: "dial", Net: network, Err: err}
}

// conn is one end of a net.Pipe with the addresses of a TCP connection.
type conn struct {
	net.Conn
	local, remote *net.TCPAddr
}

func (c *conn) LocalAddr() net.Addr  { return c.local }
func (c *conn) RemoteAddr() net.Addr { return c.remote }

// listener is the Server as the http.Server sees it: a net.Listener whose
// connections are made by dial.
type listener Server

func (l *listener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.closed:
		return nil, net.ErrClosed
	}
}

// Close is called by http.Server.Close, once.
func (l *listener) Close() error { close(l.closed); return nil }

func (l *listener) Addr() net.Addr { return serverAddr }
