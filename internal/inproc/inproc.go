// Package inproc serves HTTP requests in the same process, with no sockets,
// so that tests of an HTTP client can run inside a testing/synctest bubble,
// where a ten-second delay costs no real time.
//
// A Transport hands each request straight to an http.Handler. The handler
// sees the request's own context, so a client that gives up (a deadline, a
// cancel, closing the response body early) ends the handler's context as a
// real server would when its client hangs up. The response body is streamed:
// a handler that sends its headers and then stalls leaves the client blocked
// in Read until the client's context ends.
//
//	tr := inproc.New(fake)
//	client := &http.Client{Transport: tr}
//	resp, err := client.Get("http://stock.test/stock")
//
// What it does not do: keep connections, speak HTTP/1.1 on a wire, or apply
// the server-side timeouts of http.Server. Tests whose point is the real
// network use a loopback listener instead.
package inproc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"
)

// ErrDropped is what a client sees when the handler hangs up without a
// response: it panicked with http.ErrAbortHandler before writing anything.
var ErrDropped = fmt.Errorf("inproc: server closed the connection without a response: %w", io.EOF)

// errBodyClosed ends the handler's context when the client closes the
// response body, as a real server sees its client hang up.
var errBodyClosed = errors.New("inproc: the client closed the response body")

// Transport is an http.RoundTripper that serves every request with Handler.
// The zero value is not usable; call New.
type Transport struct {
	handler http.Handler

	mu   sync.Mutex
	open int // response bodies handed out and not closed yet
}

// New returns a Transport that serves requests with h.
func New(h http.Handler) *Transport { return &Transport{handler: h} }

// Client returns an http.Client that uses t and has no timeout of its own.
func (t *Transport) Client() *http.Client { return &http.Client{Transport: t} }

// OpenBodies reports how many response bodies the client has been given and
// has not closed. A client that always closes its bodies leaves it at 0.
func (t *Transport) OpenBodies() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.open
}

// RoundTrip serves req with the handler. It returns once the handler has
// written its headers (or returned), or with the context's cause once the
// request's context ends first.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	if ctx.Err() != nil {
		return nil, context.Cause(ctx)
	}
	hctx, hcancel := context.WithCancelCause(ctx)
	w := newWriter()

	sreq := req.Clone(hctx)
	sreq.RequestURI = req.URL.RequestURI()
	sreq.RemoteAddr = "192.0.2.1:49152" // documentation address: there is no peer
	if sreq.Body == nil {
		sreq.Body = http.NoBody
	}

	go func() {
		defer func() {
			v := recover()
			switch {
			case v == nil:
				w.finish(nil)
			case v == http.ErrAbortHandler:
				w.finish(io.ErrUnexpectedEOF)
			default:
				w.finish(fmt.Errorf("inproc: handler panicked: %v", v))
			}
			// Like net/http, a handler's context ends when it returns.
			hcancel(context.Canceled)
		}()
		t.handler.ServeHTTP(w, sreq)
	}()

	select {
	case <-w.ready:
	case <-ctx.Done():
		w.hangUp()
		hcancel(context.Cause(ctx))
		return nil, context.Cause(ctx)
	}
	if w.status == 0 { // the handler hung up before sending headers
		hcancel(ErrDropped)
		return nil, ErrDropped
	}

	t.mu.Lock()
	t.open++
	t.mu.Unlock()
	length := int64(-1)
	if n, err := strconv.ParseInt(w.sent.Get("Content-Length"), 10, 64); err == nil {
		length = n
	}
	b := &body{t: t, w: w, ctx: ctx, cancel: hcancel}
	return &http.Response{
		Status:        fmt.Sprintf("%d %s", w.status, http.StatusText(w.status)),
		StatusCode:    w.status,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        w.sent,
		Body:          b,
		ContentLength: length,
		Request:       req,
	}, nil
}

// body is the client's side of the response: it reads what the handler
// writes, fails with the context's cause once the request's context ends,
// and hangs up on the handler when closed.
type body struct {
	t      *Transport
	w      *writer
	ctx    context.Context
	cancel context.CancelCauseFunc
	rest   []byte
	once   sync.Once
	err    error // sticky: once Read fails, it keeps failing the same way
}

func (b *body) Read(p []byte) (int, error) {
	if b.err != nil {
		return 0, b.err
	}
	if len(b.rest) == 0 {
		select {
		case chunk, ok := <-b.w.data:
			if !ok {
				b.err = b.w.endErr
				if b.err == nil {
					b.err = io.EOF
				}
				return 0, b.err
			}
			b.rest = chunk
		case <-b.ctx.Done():
			b.err = context.Cause(b.ctx)
			return 0, b.err
		}
	}
	n := copy(p, b.rest)
	b.rest = b.rest[n:]
	return n, nil
}

func (b *body) Close() error {
	b.once.Do(func() {
		b.w.hangUp()
		b.cancel(errBodyClosed)
		b.t.mu.Lock()
		b.t.open--
		b.t.mu.Unlock()
	})
	return nil
}
