package inproc

import (
	"errors"
	"net/http"
	"sync"
)

// errHungUp is what a handler's Write returns once the client has gone.
var errHungUp = errors.New("inproc: the client hung up")

// bufferedWrites is how many writes the handler may make before one blocks
// waiting for the client to read, like the buffers of a real socket.
const bufferedWrites = 16

// writer is the handler's http.ResponseWriter and http.Flusher.
type writer struct {
	header http.Header

	mu          sync.Mutex
	wroteHeader bool
	finished    bool
	status      int         // set once, before ready is closed
	sent        http.Header // the headers as they were when sent
	endErr      error       // why the body ended, nil for a clean end

	ready chan struct{} // closed when the headers are sent or the handler is done
	data  chan []byte   // the body, in chunks; closed when the handler is done
	gone  chan struct{} // closed when the client hangs up
	hung  sync.Once
}

func newWriter() *writer {
	return &writer{
		header: make(http.Header),
		ready:  make(chan struct{}),
		data:   make(chan []byte, bufferedWrites),
		gone:   make(chan struct{}),
	}
}

func (w *writer) Header() http.Header { return w.header }

func (w *writer) WriteHeader(code int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.writeHeaderLocked(code)
}

func (w *writer) writeHeaderLocked(code int) {
	if w.wroteHeader || w.finished || code < 200 {
		return
	}
	w.wroteHeader = true
	w.status = code
	w.sent = w.header.Clone()
	close(w.ready)
}

func (w *writer) Write(p []byte) (int, error) {
	w.mu.Lock()
	if w.finished {
		w.mu.Unlock()
		return 0, http.ErrHandlerTimeout
	}
	if !w.wroteHeader {
		if w.header.Get("Content-Type") == "" {
			w.header.Set("Content-Type", http.DetectContentType(p))
		}
		w.writeHeaderLocked(http.StatusOK)
	}
	w.mu.Unlock()
	if len(p) == 0 {
		return 0, nil
	}
	select {
	case <-w.gone:
		return 0, errHungUp
	default:
	}
	chunk := append([]byte(nil), p...)
	select {
	case w.data <- chunk:
		return len(p), nil
	case <-w.gone:
		return 0, errHungUp
	}
}

// Flush sends the headers now, if they have not been sent.
func (w *writer) Flush() { w.WriteHeader(http.StatusOK) }

// finish is called once, when the handler has returned (err nil) or hung up
// (err describes how the body ends for the client).
func (w *writer) finish(err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if err == nil && !w.wroteHeader {
		w.writeHeaderLocked(http.StatusOK)
	}
	w.finished = true
	w.endErr = err
	if !w.wroteHeader {
		close(w.ready) // status stays 0: no response
	}
	close(w.data)
}

// hangUp tells the handler that nobody reads any more.
func (w *writer) hangUp() { w.hung.Do(func() { close(w.gone) }) }
