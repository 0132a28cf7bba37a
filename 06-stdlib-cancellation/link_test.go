package platform

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
)

// ---- The helper's side of the link ----

// helperLink is a helper process's end of the link to its test.
type helperLink struct {
	mu     sync.Mutex
	conn   net.Conn
	hungUp chan struct{} // closed when the test hangs up
}

// dialLink connects to the test that started this process and introduces
// it: "hello NAME PID". A helper that cannot reach its test exits.
func dialLink() *helperLink {
	conn, err := net.Dial("tcp", os.Getenv(linkEnv))
	if err != nil {
		fmt.Fprintf(os.Stderr, "helper %s: cannot reach its test: %v\n", os.Getenv(helperEnv), err)
		os.Exit(2)
	}
	l := &helperLink{conn: conn, hungUp: make(chan struct{})}
	l.say("hello %s %d", os.Getenv(helperEnv), os.Getpid())
	go func() {
		// The test never writes: a read returns when it hangs up.
		_, _ = conn.Read(make([]byte, 1))
		close(l.hungUp)
	}()
	return l
}

// say sends one line to the test, prefixed with the helper's name.
func (l *helperLink) say(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	line := strings.ReplaceAll(fmt.Sprintf(format, args...), "\n", " ")
	fmt.Fprintf(l.conn, "%s: %s\n", os.Getenv(helperEnv), line)
}

// ---- The test's side of the link ----

// link is a test's end of the links to its helper processes.
type link struct {
	ln     net.Listener
	start  time.Time
	closed chan struct{} // closed once the test has hung up

	mu      sync.Mutex
	lines   []heard
	news    chan struct{} // closed, and replaced, whenever a line arrives
	conns   []*linkConn
	readers sync.WaitGroup
}

// heard is a line a helper sent, and when it arrived.
type heard struct {
	text string
	at   time.Time
}

type linkConn struct {
	conn  net.Conn
	hello string        // "NAME: hello NAME PID", once it said so
	pid   int           // PID, from hello
	gone  chan struct{} // closed when the helper's end closed: it exited
}

// newLink opens a link for the helper processes of one test. When the test
// ends it hangs up, then waits for every helper to close its end, that is,
// to exit; it fails the test for each one that does not within patience.
func newLink(t testing.TB) *link {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listening on loopback for the helper processes to report to: %v", err)
	}
	l := &link{ln: ln, start: time.Now(), closed: make(chan struct{}), news: make(chan struct{})}
	l.readers.Add(1)
	go l.accept()
	t.Cleanup(func() { l.finish(t) })
	return l
}

func (l *link) accept() {
	defer l.readers.Done()
	for {
		conn, err := l.ln.Accept()
		if err != nil {
			return // the test hung up
		}
		c := &linkConn{conn: conn, gone: make(chan struct{})}
		l.mu.Lock()
		l.conns = append(l.conns, c)
		l.readers.Add(1)
		l.mu.Unlock()
		go l.read(c)
	}
}

func (l *link) read(c *linkConn) {
	defer l.readers.Done()
	defer close(c.gone)
	lines := bufio.NewScanner(c.conn)
	for lines.Scan() {
		l.mu.Lock()
		if c.hello == "" {
			c.hello = lines.Text()
			fmt.Sscanf(c.hello, "%s hello %s %d", new(string), new(string), &c.pid)
		}
		l.record(lines.Text())
		l.mu.Unlock()
	}
	// The helper's end closed: the process has exited. Say so, under its
	// name, as if it had.
	l.mu.Lock()
	name, _, _ := strings.Cut(c.hello, ":")
	l.record(name + ": (exited: its end of the link closed)")
	l.mu.Unlock()
}

// record keeps a line a helper said. Call it with l.mu held.
func (l *link) record(text string) {
	l.lines = append(l.lines, heard{text, time.Now()})
	close(l.news)
	l.news = make(chan struct{})
}

// hangUp tells every helper process the test is over: each one still running
// exits once it notices. It stops accepting new helpers.
func (l *link) hangUp() {
	l.mu.Lock()
	defer l.mu.Unlock()
	select {
	case <-l.closed:
		return
	default:
	}
	close(l.closed)
	l.ln.Close()
	for _, c := range l.conns {
		if tcp, ok := c.conn.(*net.TCPConn); ok {
			tcp.CloseWrite() // the helper reads EOF; we keep reading until it exits
		} else {
			c.conn.Close()
		}
	}
}

// finish hangs up and waits for every helper process to exit.
func (l *link) finish(t testing.TB) {
	l.hangUp()
	deadline := time.NewTimer(patience)
	defer deadline.Stop()
	l.mu.Lock()
	conns := append([]*linkConn(nil), l.conns...)
	l.mu.Unlock()
	for _, c := range conns {
		select {
		case <-c.gone:
			continue
		case <-deadline.C:
		}
		t.Errorf("helper process %q was still running %v after the test hung up: a child process outlived its test. Killing it.", c.hello, patience)
		if p, err := os.FindProcess(c.pid); c.pid != 0 && err == nil {
			p.Kill()
		}
		c.conn.Close()
		deadline.Reset(patience)
	}
	l.readers.Wait()
	if len(conns) > 0 {
		t.Logf("the helper processes said: %s", l.transcript()) // go test -v shows it
	}
}

// drain waits, at most patience, until every line the process pid said is
// in: until its end of the link has closed. Call it once it has exited.
func (l *link) drain(pid int) {
	l.mu.Lock()
	var gone []chan struct{}
	for _, c := range l.conns {
		if c.pid == pid {
			gone = append(gone, c.gone)
		}
	}
	l.mu.Unlock()
	timeout := time.NewTimer(patience)
	defer timeout.Stop()
	for _, g := range gone {
		select {
		case <-g:
		case <-timeout.C:
			return
		}
	}
}

// await waits, at most patience, for a helper to say a line that begins with
// prefix, and returns that line and when it arrived. It gives up early once
// unless is closed (when the process that should say it has exited, say).
// ok is false when no such line came; the caller reports it.
func (l *link) await(prefix string, unless <-chan struct{}) (line heard, ok bool) {
	timeout := time.NewTimer(patience)
	defer timeout.Stop()
	exited := unless
	for {
		l.mu.Lock()
		news := l.news
		for _, h := range l.lines {
			if strings.HasPrefix(h.text, prefix) {
				l.mu.Unlock()
				return h, true
			}
		}
		l.mu.Unlock()
		select {
		case <-news:
		case <-exited:
			exited = nil
			// It may have been said just before: look once more, then
			// give up.
			timeout.Reset(0)
		case <-timeout.C:
			return heard{}, false
		}
	}
}

// transcript is every line the helpers said, for failure messages.
func (l *link) transcript() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.lines) == 0 {
		return "(the helper processes said nothing)"
	}
	var b strings.Builder
	for _, h := range l.lines {
		fmt.Fprintf(&b, "\n\t%6.3fs %s", h.at.Sub(l.start).Seconds(), h.text)
	}
	return b.String()
}
