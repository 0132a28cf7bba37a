package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"testing/synctest"
	"time"

	"github.com/icecreamcorp/go-cancellation-workshop/internal/leakcheck"
)

func TestCallerGoesAway(t *testing.T) {
	t.Run("one caller of two leaves", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			svc := newTestService(10 * time.Second)
			ctx, leave := context.WithCancel(t.Context())
			defer leave()
			stays, leaves := startRequest(t, t.Context(), svc.handler(), http.MethodGet), startRequest(t, ctx, svc.handler(), http.MethodGet)
			time.Sleep(3 * time.Second)
			synctest.Wait()
			if _, ok := returned(leaves); ok {
				t.Fatalf("GET /stock answered 3s into a 10s delay, want it still waiting (wait on the timer; a select with no default)")
			}
			leave()
			synctest.Wait()
			if rec, ok := returned(leaves); !ok {
				t.Fatalf("GET /stock still waiting after its caller left, want it to return at once (select on the timer and r.Context().Done())")
			} else if rec.Body.Len() > 0 {
				t.Errorf("GET /stock answered %q after its caller left, want no answer (return)", rec.Body)
			}
			delayOf(t, <-stays)
			if got := svc.abandoned.Value(); got != 1 {
				t.Errorf("1 caller of 2 left: got abandoned %d, want 1 (s.abandoned.Add when r.Context().Done() wins)", got)
			}
		})
	})

	// On a real TCP connection: when a client hangs up, net/http cancels the
	// request's context, and the handler returns within milliseconds.
	t.Run("TCP client hangs up", func(t *testing.T) {
		leakcheck.Check(t)
		svc := newTestService(3 * time.Second) // bounds a handler that never gives up
		started, done := make(chan struct{}), make(chan struct{})
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			close(started) // this test sends one request only
			defer close(done)
			svc.handler().ServeHTTP(w, r)
		}))
		t.Cleanup(srv.Close) // waits for the handler to return
		conn, err := net.Dial("tcp", srv.Listener.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		fmt.Fprintf(conn, "GET /stock HTTP/1.1\r\nHost: stock.icecreamcorp.test\r\n\r\n")
		select {
		case <-started:
		case <-time.After(2 * time.Second):
			t.Fatalf("GET /stock did not reach the handler within 2s")
		}
		conn.Close() // hang up
		select {
		case <-done:
		case <-time.After(2 * time.Second):
			t.Fatalf("GET /stock still waiting 2s after its TCP client hung up, want it to return at once (select on r.Context().Done())")
		}
		if got := svc.abandoned.Value(); got != 1 {
			t.Errorf("TCP client hung up: got abandoned %d, want 1", got)
		}
	})
}
