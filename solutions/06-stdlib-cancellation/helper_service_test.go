package platform

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"
)

const graceEnv = "PLATFORM_TEST_GRACE" // the service's grace period

// uploadSeen is what POST /upload answers: what its handler saw.
type uploadSeen struct {
	Received    int    `json:"received"`
	SawStopping bool   `json:"saw_stopping"`
	ContextErr  string `json:"context_err"`
}

// helperService is a service's main: it calls Serve on a loopback port with
// two handlers that say over the link what they see, then waits a second at
// most for those still running. It exits 1 if Serve returned an error.
func helperService() int {
	link := dialLink()
	grace, _ := time.ParseDuration(os.Getenv(graceEnv))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		link.say("cannot listen: %v", err)
		return 2
	}
	var handlers sync.WaitGroup
	mux := http.NewServeMux()
	mux.HandleFunc("POST /upload", func(w http.ResponseWriter, r *http.Request) {
		handlers.Add(1)
		defer handlers.Done()
		first, err := io.ReadAll(io.LimitReader(r.Body, int64(len("first half, "))))
		link.say("upload read %d bytes", len(first))
		rest, err2 := io.ReadAll(r.Body)
		if err = cmp.Or(err, err2); err != nil {
			link.say("upload failed: %v", err)
			return
		}
		got := uploadSeen{Received: len(first) + len(rest)}
		select {
		case <-Stopping(r.Context()):
			got.SawStopping = true
		default:
		}
		if err := context.Cause(r.Context()); err != nil {
			got.ContextErr = err.Error()
		}
		link.say("upload finished: %+v", got)
		json.NewEncoder(w).Encode(got)
	})
	mux.HandleFunc("GET /wait", func(w http.ResponseWriter, r *http.Request) {
		handlers.Add(1)
		defer handlers.Done()
		link.say("wait started")
		<-r.Context().Done()
		link.say("wait ended: %v", context.Cause(r.Context()))
	})
	link.say("listening %s", ln.Addr())
	err = Serve(context.Background(), &watchedListener{Listener: ln, link: link}, mux, grace)
	link.say("Serve returned: %v", err)
	finished := make(chan struct{})
	go func() { handlers.Wait(); close(finished) }()
	select {
	case <-finished:
	case <-time.After(time.Second):
		link.say("handlers still running 1s after Serve returned")
		return 3
	}
	if err != nil {
		return 1
	}
	return 0
}

// watchedListener tells the test when it is closed.
type watchedListener struct {
	net.Listener
	link *helperLink
	once sync.Once
}

func (l *watchedListener) Close() error {
	err := l.Listener.Close()
	l.once.Do(func() { l.link.say("listener closed") })
	return err
}

// service is the helper "service", run by a test.
type service struct {
	cmd      *exec.Cmd
	stderr   bytes.Buffer  // read it once done is closed
	done     chan struct{} // closed once it has exited and all it said is heard
	exitedAt time.Time     // read it once done is closed
	link     *link
	addr     string
}

// startService starts the service with grace, and waits for it to listen.
// It is killed, if still running, when the test ends.
func startService(t *testing.T, grace time.Duration) *service {
	t.Helper()
	s := &service{cmd: exec.Command(os.Args[0]), done: make(chan struct{}), link: newLink(t)}
	s.cmd.Env = helperEnviron(s.link, "service", graceEnv+"="+grace.String())
	s.cmd.Stderr, s.cmd.WaitDelay = &s.stderr, patience
	if err := s.cmd.Start(); err != nil {
		t.Fatalf("starting the service: %v", err)
	}
	go func() {
		defer close(s.done)
		s.cmd.Wait()
		s.exitedAt = time.Now()
		s.link.drain() // so that, once done is closed, all it said is heard
	}()
	t.Cleanup(func() {
		s.cmd.Process.Kill()
		<-s.done // bounded by WaitDelay and drain
	})
	s.addr = strings.TrimPrefix(s.hear(t, "listening ", "").text, "service: listening ")
	return s
}

// wait waits at most patience for the service to exit, and reports whether it did.
func (s *service) wait() bool {
	select {
	case <-s.done:
		return true
	case <-time.After(patience):
		return false
	}
}

// startWaiting starts the service with grace, and a GET /wait that runs
// until its context ends.
func startWaiting(t *testing.T, grace time.Duration) *service {
	t.Helper()
	svc := startService(t, grace)
	send(t, svc.addr, "GET /wait HTTP/1.1\r\nHost: shop.test\r\n\r\n")
	svc.hear(t, "wait started", "Serve serves h on ln")
	return svc
}

// hear waits for the service to say a line that starts with what, or fails
// the test with fix.
func (s *service) hear(t *testing.T, what, fix string) heard {
	t.Helper()
	h, ok := s.link.await("service: "+what, s.done)
	if !ok {
		said := s.link.transcript()
		if strings.Contains(said, "Serve returned") && !strings.Contains(said, "listener closed") {
			fix = "Serve returned unasked: serve until the signal, http.Server.Serve in a goroutine"
		}
		select {
		case <-s.done:
			fix += "; it exited: " + s.cmd.ProcessState.String() + ", stderr: " + s.stderr.String()
		default:
		}
		t.Fatalf("the service never said %q; %s", what, fix)
	}
	return h
}

// signal sends sig to the service, and returns when.
func (s *service) signal(t *testing.T, sig os.Signal) time.Time {
	t.Helper()
	sent := time.Now()
	if err := s.cmd.Process.Signal(sig); err != nil {
		t.Fatalf("sending %v to the service: %v", sig, err)
	}
	return sent
}
