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
// write blocks, as a socket's buffers would (a body nobody reads fills it).
const bufferSize = 64 << 10

// stream is one direction of a connection: what one end writes waits in buf
// until the other end reads it. Goroutines wait on the changed channel, never
// on a held mutex, so that testing/synctest sees them as durably blocked.
type stream struct {
	mu                     sync.Mutex
	buf                    bytes.Buffer
	writerGone, readerGone bool           // an end closed
	by                     [2]time.Time   // the read and write deadlines; zero means none
	timers                 [2]*time.Timer // wake the waiters at each deadline
	changed                chan struct{}  // closed and replaced on every change
}

// broadcast wakes every goroutine waiting on s. Call it with s.mu held.
func (s *stream) broadcast() {
	close(s.changed)
	s.changed = make(chan struct{})
}

// Indexes of stream.by and stream.timers.
const (
	reading = iota
	writing
)

// setDeadline sets the reading or writing deadline, and wakes the waiters
// when it passes.
func (s *stream) setDeadline(i int, t time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.by[i] = t
	if s.timers[i] != nil {
		s.timers[i].Stop()
	}
	if wait := time.Until(t); !t.IsZero() && wait > 0 {
		s.timers[i] = time.AfterFunc(wait, func() {
			s.mu.Lock()
			defer s.mu.Unlock()
			s.broadcast()
		})
	}
	s.broadcast()
}

func passed(t time.Time) bool { return !t.IsZero() && !time.Now().Before(t) }

// wait runs step with s.mu held until it reports done, waiting for a change
// of s between tries.
func (s *stream) wait(step func() (done bool)) {
	for {
		s.mu.Lock()
		if step() {
			s.mu.Unlock()
			return
		}
		changed := s.changed
		s.mu.Unlock()
		<-changed
	}
}

// The errors a socket gives once its peer has reset the connection, or a
// deadline has passed.
var (
	errReset     = &net.OpError{Op: "write", Net: "tcp", Err: os.NewSyscallError("write", syscall.ECONNRESET)}
	errReadTime  = &net.OpError{Op: "read", Net: "tcp", Err: os.ErrDeadlineExceeded}
	errWriteTime = &net.OpError{Op: "write", Net: "tcp", Err: os.ErrDeadlineExceeded}
)

// conn is one end of an in-memory TCP-like connection. Reads block until the
// other end writes, deadlines work, and Close is seen by the other end as EOF
// after what was sent, and as a reset on write.
type conn struct {
	in, out       *stream // what this end reads, and what it writes
	local, remote net.Addr
	once          sync.Once
}

// pipe returns the two ends of a new connection.
func pipe(a, b net.Addr) (*conn, *conn) {
	ab, ba := &stream{changed: make(chan struct{})}, &stream{changed: make(chan struct{})}
	return &conn{in: ba, out: ab, local: a, remote: b}, &conn{in: ab, out: ba, local: b, remote: a}
}

func (c *conn) Read(p []byte) (n int, err error) {
	s := c.in
	s.wait(func() bool {
		switch {
		case s.readerGone: // this end closed
			err = net.ErrClosed
		case s.buf.Len() > 0:
			n, _ = s.buf.Read(p)
			s.broadcast() // room for the writer
		case s.writerGone:
			err = io.EOF
		case passed(s.by[reading]):
			err = errReadTime
		default:
			return false
		}
		return true
	})
	return n, err
}

func (c *conn) Write(p []byte) (n int, err error) {
	s := c.out
	s.wait(func() bool {
		for {
			switch {
			case s.writerGone: // this end closed
				err = net.ErrClosed
			case s.readerGone:
				err = errReset
			case len(p) == n:
			case s.buf.Len() < bufferSize:
				k := min(len(p)-n, bufferSize-s.buf.Len())
				s.buf.Write(p[n : n+k])
				n += k
				s.broadcast() // data for the reader
				continue
			case passed(s.by[writing]):
				err = errWriteTime
			default:
				return false
			}
			return true
		}
	})
	return n, err
}

// Close closes this end: the other end reads what was already sent, then
// io.EOF, and its writes fail as on a reset connection.
func (c *conn) Close() error {
	err := net.ErrClosed
	c.once.Do(func() {
		err = nil
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
	return err
}

func (c *conn) LocalAddr() net.Addr                { return c.local }
func (c *conn) RemoteAddr() net.Addr               { return c.remote }
func (c *conn) SetReadDeadline(t time.Time) error  { c.in.setDeadline(reading, t); return nil }
func (c *conn) SetWriteDeadline(t time.Time) error { c.out.setDeadline(writing, t); return nil }
func (c *conn) SetDeadline(t time.Time) error {
	c.SetReadDeadline(t)
	return c.SetWriteDeadline(t)
}
