package platform

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"sync"
	"time"
)

// ---- The service, played by this test binary ----

// graceEnv holds the service's grace period.
const graceEnv = "PLATFORM_TEST_GRACE"

// helperService is a small service's main: it listens on a free loopback
// port, and calls Serve with two handlers that report over the link what
// they see. Once Serve has returned it waits (a little) for the handlers
// still running, so that they can report how they ended.
func helperService() int {
	link := dialLink()
	grace, err := time.ParseDuration(os.Getenv(graceEnv))
	if err != nil {
		link.say("bad %s: %v", graceEnv, err)
		return 2
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		link.say("cannot listen: %v", err)
		return 2
	}

	var handlers sync.WaitGroup
	mux := http.NewServeMux()
	// POST /upload reads its whole body, saying how far it got, then
	// says what it saw.
	mux.HandleFunc("POST /upload", func(w http.ResponseWriter, r *http.Request) {
		handlers.Add(1)
		defer handlers.Done()
		link.say("upload started")
		var body []byte
		for buf := make([]byte, 64); ; {
			n, err := r.Body.Read(buf)
			if n > 0 {
				body = append(body, buf[:n]...)
				link.say("upload read %d bytes", len(body))
			}
			if err == io.EOF {
				break
			}
			if err != nil {
				link.say("upload failed: %v", err)
				return
			}
		}
		var answer struct {
			Received    int    `json:"received"`
			SawStopping bool   `json:"saw_stopping"`
			ContextErr  string `json:"context_err"`
		}
		answer.Received = len(body)
		select {
		case <-Stopping(r.Context()):
			answer.SawStopping = true
		default:
		}
		if err := context.Cause(r.Context()); err != nil {
			answer.ContextErr = err.Error()
		}
		link.say("upload finished: %+v", answer)
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(answer)
	})
	// GET /wait runs until its context ends.
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
	go func() {
		handlers.Wait()
		close(finished)
	}()
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
