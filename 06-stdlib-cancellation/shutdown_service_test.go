package platform

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"
)

// service is the helper process "service", started by startService.
type service struct {
	proc   *process
	link   *link
	addr   string
	client *http.Client
}

// startService starts the helper process "service" with the given grace,
// and waits for it to listen. If it does not, it fails the test and returns
// nil.
func startService(t *testing.T, l *link, grace time.Duration) *service {
	t.Helper()
	svc := &service{link: l}
	svc.proc = startHelper(t, l, "service", graceEnv+"="+grace.String())
	listening, ok := l.await("service: listening ", svc.proc.done)
	if !ok {
		t.Errorf("the service did not say it was listening. It said: %s\nIts output: %s", l.transcript(), &svc.proc.output)
		return nil
	}
	svc.addr = strings.TrimPrefix(listening.text, "service: listening ")
	transport := &http.Transport{}
	svc.client = &http.Client{Transport: transport, Timeout: 2 * patience}
	t.Cleanup(transport.CloseIdleConnections)
	return svc
}

// startWaiting starts the service with the given grace and sends it a
// GET /wait that never ends by itself (it is answered when the test ends),
// then waits for that handler to start. If either fails, it has failed the
// test and returns nil.
func startWaiting(t *testing.T, l *link, grace time.Duration) *service {
	t.Helper()
	svc := startService(t, l, grace)
	if svc == nil {
		return nil
	}
	svc.request(t, http.MethodGet, "/wait", nil)
	if !svc.hear(t, "service: wait started", "the handler of GET /wait started", "task 6: Serve serves h on ln") {
		return nil
	}
	return svc
}

// hear waits for the service to say a line that starts with prefix, and
// reports whether it did; if not, it fails the test, saying what it waited
// to hear (a clause: "its listener was closed") and which task to read if the
// service did not say it.
func (s *service) hear(t *testing.T, prefix, what, task string) bool {
	t.Helper()
	if _, ok := s.link.await(prefix, s.proc.done); ok {
		return true
	}
	select {
	case <-s.proc.done:
	default:
		t.Errorf("waited %v to hear that %s; the service was still running (%s). It said: %s\nIts output: %s", patience, what, task, s.link.transcript(), &s.proc.output)
		return false
	}
	if returned, ok := s.link.await("service: Serve returned", s.proc.done); ok && !strings.Contains(s.link.transcript(), "service: listener closed") {
		t.Errorf("Serve returned %q without being stopped, and the service exited (%v) before %s; want Serve to serve until SIGINT arrives (task 6: run http.Server.Serve(ln) in a goroutine, and wait for the signal). The service said: %s\nIts output: %s",
			strings.TrimPrefix(returned.text, "service: Serve returned: "), s.proc.cmd.ProcessState, what, s.link.transcript(), &s.proc.output)
		return false
	}
	t.Errorf("the service exited (%v) before %s (%s). It said: %s\nIts output: %s", s.proc.cmd.ProcessState, what, task, s.link.transcript(), &s.proc.output)
	return false
}

// interrupt sends SIGINT to the service, as Ctrl-C would, and returns when.
func (s *service) interrupt(t *testing.T) time.Time {
	t.Helper()
	return s.signal(t, os.Interrupt)
}

// signal sends sig to the service, and returns when.
func (s *service) signal(t *testing.T, sig os.Signal) time.Time {
	t.Helper()
	sent := time.Now()
	if err := s.proc.cmd.Process.Signal(sig); err != nil {
		t.Errorf("sending %v to the service: %v", sig, err)
	}
	return sent
}

// state says whether the service is still running, or how it exited.
func (s *service) state() string {
	select {
	case <-s.proc.done:
		return "it exited: " + s.proc.cmd.ProcessState.String()
	default:
		return "it is still running"
	}
}

// exited waits at most d for the service to exit, and reports whether it
// did; if not, it fails the test, saying what was expected.
func (s *service) exited(t *testing.T, d time.Duration, what string) bool {
	t.Helper()
	if s.proc.wait(d) {
		return true
	}
	t.Errorf("the service was still running %v %s. It said: %s", d, what, s.link.transcript())
	return false
}

// feed writes text to an upload's body, waiting at most patience for the
// request to take it.
func (s *service) feed(t *testing.T, w *io.PipeWriter, text string) {
	t.Helper()
	done := make(chan error, 1)
	go func() {
		_, err := io.WriteString(w, text)
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("sending %q of the upload's body: %v", text, err)
		}
	case <-time.After(patience):
		w.CloseWithError(fmt.Errorf("the test gave up after %v", patience))
		<-done
		t.Errorf("the upload did not take %q of its body within %v", text, patience)
	}
}

// pending is a request to the service in flight on a goroutine of its own.
type pending struct {
	done   chan struct{}
	status int
	body   string
	err    error
}

// request sends a request to the service on a goroutine of its own.
func (s *service) request(t *testing.T, method, path string, body io.Reader) *pending {
	t.Helper()
	p := &pending{done: make(chan struct{})}
	req, err := http.NewRequest(method, "http://"+s.addr+path, body)
	if err != nil {
		t.Fatalf("http.NewRequest(%s %s): %v", method, path, err)
	}
	go func() {
		defer close(p.done)
		resp, err := s.client.Do(req)
		if err != nil {
			p.err = err
			return
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		p.status, p.body, p.err = resp.StatusCode, string(b), err
	}()
	t.Cleanup(func() {
		// The test is over: a request still in flight ends with the service.
		s.proc.kill(t)
		if c, ok := body.(io.Closer); ok {
			c.Close()
		}
		p.result(t)
	})
	return p
}

// result waits for the request's answer, at most patience.
func (p *pending) result(t *testing.T) *pending {
	t.Helper()
	select {
	case <-p.done:
	case <-time.After(2 * patience):
		t.Errorf("a request to the service had not returned after %v", 2*patience)
	}
	return p
}
