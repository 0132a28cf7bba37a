package platform

// The child processes of tasks 5 and 6 (report generators, a service) are
// this test binary, run again, as os/exec tests itself. With
// PLATFORM_TEST_HELPER in its environment, TestMain runs no test: the binary
// plays the helper program of that name and exits. A helper tells its test
// what happens to it over a link (below), so no test guesses with a
// sleep, and every helper, grandchildren included, exits with its test.

import (
	"bufio"
	"cmp"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

const (
	helperEnv = "PLATFORM_TEST_HELPER" // the helper program to play
	linkEnv   = "PLATFORM_TEST_LINK"   // where its test listens
	parentEnv = "PLATFORM_TEST_PARENT" // set in the tests' own process

	// patience bounds every wait on a helper process: only a wrong answer,
	// or a helper that hangs, waits that long.
	patience = 5 * time.Second
)

var helpers = map[string]func() int{
	"report":     helperReport,
	"grandchild": helperGrandchild,
	"service":    helperService,
}

func TestMain(m *testing.M) {
	if name := os.Getenv(helperEnv); name != "" {
		if main, ok := helpers[name]; ok {
			os.Exit(main())
		}
		fmt.Fprintf(os.Stderr, "%s=%s: no helper program of that name\n", helperEnv, name)
		os.Exit(2)
	}
	if parent := os.Getenv(parentEnv); parent != "" {
		// Started by these tests without the helper to play: running the
		// tests here would start more children, and so on.
		fmt.Fprintf(os.Stderr, "started by its own tests (pid %s) without %s: set Cmd.Env to g.Env\n", parent, helperEnv)
		os.Exit(2)
	}
	os.Setenv(parentEnv, strconv.Itoa(os.Getpid()))
	os.Exit(m.Run())
}

// helperEnviron is the environment of the helper program name, linked to l:
// this process's own, with extra ("KEY=value") on top. Under -race a program
// that exits 0 first sleeps a second (GORACE's atexit_sleep_ms): not helpers.
func helperEnviron(l *link, name string, extra ...string) []string {
	gorace := strings.TrimSpace(os.Getenv("GORACE") + " atexit_sleep_ms=0")
	env := append(os.Environ(), helperEnv+"="+name, "GORACE="+gorace, linkEnv+"="+l.ln.Addr().String())
	return append(env, extra...)
}

// A link is a loopback listener of one test, which its helper processes dial
// to say, a line at a time, what happens to them ("ready"). When the test
// ends it hangs up: each helper reads EOF and exits, and the test waits for
// its end to close, as the OS does when the process exits.

// helperLink is a helper's end of the link.
type helperLink struct {
	mu     sync.Mutex
	conn   net.Conn
	hungUp chan struct{} // closed when the test hangs up
}

// dialLink connects to the test and says "hello PID".
func dialLink() *helperLink {
	conn, err := net.Dial("tcp", os.Getenv(linkEnv))
	if err != nil {
		fmt.Fprintf(os.Stderr, "helper: cannot reach its test: %v\n", err)
		os.Exit(2)
	}
	l := &helperLink{conn: conn, hungUp: make(chan struct{})}
	l.say("hello %d", os.Getpid())
	go func() {
		conn.Read(make([]byte, 1)) // the test never writes: this returns when it hangs up
		close(l.hungUp)
	}()
	return l
}

// say sends the test a line, prefixed with the helper's name.
func (l *helperLink) say(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	fmt.Fprintf(l.conn, "%s: %s\n", os.Getenv(helperEnv), fmt.Sprintf(format, args...))
}

// link is the test's end.
type link struct {
	ln      net.Listener
	start   time.Time
	readers sync.WaitGroup

	mu    sync.Mutex
	lines []heard
	news  chan struct{} // closed, and replaced, whenever a line arrives
	conns []*linkConn
}

type heard struct {
	text string
	at   time.Time
}

type linkConn struct {
	*net.TCPConn
	hello string        // "NAME: hello PID"
	gone  chan struct{} // closed when the helper's end closed: it exited
}

// newLink opens a link. When the test ends it hangs up, and fails the test
// for a helper, grandchildren included, still running patience later.
func newLink(t testing.TB) *link {
	t.Helper()
	ln := loopback(t)
	l := &link{ln: ln, start: time.Now(), news: make(chan struct{})}
	l.readers.Go(func() {
		for conn, err := ln.Accept(); err == nil; conn, err = ln.Accept() {
			c := &linkConn{TCPConn: conn.(*net.TCPConn), gone: make(chan struct{})}
			l.mu.Lock()
			l.conns = append(l.conns, c)
			l.mu.Unlock()
			l.readers.Go(func() { l.read(c) })
		}
	})
	t.Cleanup(func() {
		l.hangUp()
		if c := l.drain(); c != nil {
			t.Errorf("helper %q still running %v after its test ended", c.hello, patience)
			l.mu.Lock()
			for _, c := range l.conns {
				c.Close()
			}
			l.mu.Unlock()
		}
		l.readers.Wait()
		if said := l.transcript(); said != "" {
			t.Logf("the helpers said:%s", said) // go test -v shows it
		}
	})
	return l
}

func (l *link) read(c *linkConn) {
	defer close(c.gone)
	for lines := bufio.NewScanner(c); lines.Scan(); {
		l.record(c, lines.Text())
	}
	name, _, _ := strings.Cut(c.hello, ":")
	l.record(c, name+": exited")
}

// record keeps a line that c said.
func (l *link) record(c *linkConn, text string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	c.hello = cmp.Or(c.hello, text)
	l.lines = append(l.lines, heard{text, time.Now()})
	close(l.news)
	l.news = make(chan struct{})
}

// hangUp tells every helper that the test is over.
func (l *link) hangUp() {
	l.ln.Close()
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, c := range l.conns {
		c.CloseWrite() // it reads EOF; we read on until it exits
	}
}

// drain waits, at most patience, until every helper's end has closed. It
// returns one still open then, or nil.
func (l *link) drain() *linkConn {
	timeout := time.After(patience)
	l.mu.Lock()
	conns := l.conns
	l.mu.Unlock()
	for _, c := range conns {
		select {
		case <-c.gone:
		case <-timeout:
			return c
		}
	}
	return nil
}

// await waits, at most patience, for a line that begins with prefix. Once
// unless is closed (the helper that should say it has exited), it looks
// once more when all is heard, and gives up.
func (l *link) await(prefix string, unless <-chan struct{}) (heard, bool) {
	timeout := time.NewTimer(patience)
	defer timeout.Stop()
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
		case <-unless:
			unless = nil
			l.drain()
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
	var b strings.Builder
	for _, h := range l.lines {
		fmt.Fprintf(&b, "\n\t%6.3fs %s", h.at.Sub(l.start).Seconds(), h.text)
	}
	return b.String()
}
