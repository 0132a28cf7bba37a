package memnet

import (
	"bytes"
	"io"
	"net"
	"os"
	"sync"
	"syscall"
	"time"
)

// bufferSize is how many bytes one direction of a connection holds before a
// write blocks, like the buffers of a loopback socket (a little smaller, so
// that a large body fills them quickly).
const bufferSize = 64 << 10

// stream is one direction of a connection: bytes written at one end wait in
// buf until the other end reads them.
//
// Blocking is done on channels only (changed), never on a held mutex, so that
// a goroutine waiting on a stream is "durably blocked" for testing/synctest.
type stream struct {
	mu         sync.Mutex
	buf        bytes.Buffer
	writerGone bool // the writing end closed: reads drain buf, then io.EOF
	readerGone bool // the reading end closed: writes fail, buf is dropped
	readBy     deadline
	writeBy    deadline
	changed    chan struct{} // closed and replaced on every change of state
}

func newStream() *stream { return &stream{changed: make(chan struct{})} }

// broadcast wakes every goroutine waiting on s. Call it with s.mu held.
func (s *stream) broadcast() {
	close(s.changed)
	s.changed = make(chan struct{})
}

// deadline is a read or write deadline of a stream, with the timer that wakes
// waiters when it passes.
type deadline struct {
	at    time.Time
	timer *time.Timer
}

func (s *stream) setDeadline(d *deadline, t time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if d.timer != nil {
		d.timer.Stop()
		d.timer = nil
	}
	d.at = t
	if !t.IsZero() {
		if wait := time.Until(t); wait > 0 {
			d.timer = time.AfterFunc(wait, func() {
				s.mu.Lock()
				defer s.mu.Unlock()
				s.broadcast()
			})
		}
	}
	s.broadcast() // waiters look at the new deadline
}

func (d *deadline) passed() bool { return !d.at.IsZero() && !time.Now().Before(d.at) }

// errReset is what a write returns once the other end has closed: a real
// socket answers with a reset, and net/http treats it as the peer gone.
var errReset = &net.OpError{Op: "write", Net: "tcp", Err: os.NewSyscallError("write", syscall.ECONNRESET)}

// errTimeout is what an operation returns when its deadline has passed.
var errTimeout = &net.OpError{Op: "read", Net: "tcp", Err: os.ErrDeadlineExceeded}

// read reads what the writing end sent. readerGone means this end closed.
func (s *stream) read(p []byte) (int, error) {
	for {
		s.mu.Lock()
		switch {
		case s.readerGone:
			s.mu.Unlock()
			return 0, net.ErrClosed
		case s.buf.Len() > 0:
			n, _ := s.buf.Read(p)
			s.broadcast() // room for the writer
			s.mu.Unlock()
			return n, nil
		case s.writerGone:
			s.mu.Unlock()
			return 0, io.EOF
		case s.readBy.passed():
			s.mu.Unlock()
			return 0, errTimeout
		}
		changed := s.changed
		s.mu.Unlock()
		<-changed
	}
}

// write sends p to the reading end. writerGone means this end closed.
func (s *stream) write(p []byte) (int, error) {
	written := 0
	for {
		s.mu.Lock()
		switch {
		case s.writerGone:
			s.mu.Unlock()
			return written, net.ErrClosed
		case s.readerGone:
			s.mu.Unlock()
			return written, errReset
		case len(p) == 0:
			s.mu.Unlock()
			return written, nil
		case s.buf.Len() < bufferSize:
			n := min(len(p), bufferSize-s.buf.Len())
			s.buf.Write(p[:n])
			p = p[n:]
			written += n
			s.broadcast() // data for the reader
			s.mu.Unlock()
			continue
		case s.writeBy.passed():
			s.mu.Unlock()
			return written, &net.OpError{Op: "write", Net: "tcp", Err: os.ErrDeadlineExceeded}
		}
		changed := s.changed
		s.mu.Unlock()
		<-changed
	}
}

// conn is one end of an in-memory TCP-like connection: a net.Conn whose
// reads block until the other end writes, whose deadlines work, and whose
// Close is seen by the other end as EOF on read and a reset on write.
type conn struct {
	in, out       *stream // in: what this end reads; out: what it writes
	local, remote net.Addr

	closeOnce sync.Once
}

// pipe returns the two ends of a new connection.
func pipe(a, b net.Addr) (*conn, *conn) {
	ab, ba := newStream(), newStream()
	return &conn{in: ba, out: ab, local: a, remote: b}, &conn{in: ab, out: ba, local: b, remote: a}
}

func (c *conn) Read(p []byte) (int, error)  { return c.in.read(p) }
func (c *conn) Write(p []byte) (int, error) { return c.out.write(p) }

// Close closes this end: the other end reads what was already sent, then
// io.EOF, and its writes fail as on a reset connection.
func (c *conn) Close() error {
	first := false
	c.closeOnce.Do(func() {
		first = true
		c.in.mu.Lock()
		c.in.readerGone = true
		c.in.buf.Reset()
		c.in.broadcast()
		c.in.mu.Unlock()

		c.out.mu.Lock()
		c.out.writerGone = true
		c.out.broadcast()
		c.out.mu.Unlock()
	})
	if !first {
		return net.ErrClosed
	}
	return nil
}

func (c *conn) LocalAddr() net.Addr  { return c.local }
func (c *conn) RemoteAddr() net.Addr { return c.remote }

func (c *conn) SetDeadline(t time.Time) error {
	c.SetReadDeadline(t)
	c.SetWriteDeadline(t)
	return nil
}

func (c *conn) SetReadDeadline(t time.Time) error {
	c.in.setDeadline(&c.in.readBy, t)
	return nil
}

func (c *conn) SetWriteDeadline(t time.Time) error {
	c.out.setDeadline(&c.out.writeBy, t)
	return nil
}
