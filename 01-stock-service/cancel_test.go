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
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCallerGoesAway(t *testing.T) {
	t.Run("returns at once when the request's context is cancelled, and counts it as abandoned", func(t *testing.T) {
		leakcheck.Check(t)
		synctest.Test(t, func(t *testing.T) {
			svc := newTestService(10 * time.Second)
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			done := startRequest(t, ctx, svc.handler(), http.MethodGet)

			time.Sleep(3 * time.Second)
			synctest.Wait()
			_, early := returned(done)
			require.False(t, early, "GET /stock had already answered 3s into its 10s delay; want it still waiting (task 2: wait with time.NewTimer)")

			cancel() // the caller goes away, 3 s into a 10 s delay
			synctest.Wait()
			_, ok := returned(done)
			if !ok {
				assert.Fail(t, "GET /stock was still waiting after its caller went away; want it to return at once, counting it as abandoned (task 3: select on the timer and r.Context().Done())")
				return
			}
			assert.Equal(t, int64(1), svc.abandoned.Value(), "s.abandoned is %d after a caller went away; want 1 (task 3: count it with s.abandoned.Add)", svc.abandoned.Value())
			assert.Equal(t, int64(0), svc.completed.Value(), "s.completed is %d, but the only request was abandoned; want 0 (task 3: return as soon as the caller has gone — nobody will read an answer; task 4: count completed only after answering)", svc.completed.Value())
		})
	})

	t.Run("does not count a caller who stays as abandoned", func(t *testing.T) {
		leakcheck.Check(t)
		synctest.Test(t, func(t *testing.T) {
			svc := newTestService(time.Second)
			decodeStock(t, <-startRequest(t, t.Context(), svc.handler(), http.MethodGet))
			assert.Equal(t, int64(0), svc.abandoned.Value(), "s.abandoned is %d after a request that was answered; want 0 (task 3: count only when r.Context().Done() wins)", svc.abandoned.Value())
		})
	})

	// The point of the step, on a real TCP connection: when a client closes
	// its connection, net/http cancels the request's context, and a handler
	// that waits on it returns within milliseconds. The margins below are
	// hundreds of times that, so a busy machine does not make the test flaky.
	t.Run("returns promptly when a real TCP client hangs up", func(t *testing.T) {
		leakcheck.Check(t)
		const delay = 3 * time.Second // bounds how long a handler that never gives up keeps the test
		const patience = 2 * time.Second
		svc := newTestService(delay)
		asked := make(chan struct{}, 1) // the handler has drawn its delay: it is about to wait
		svc.delay = func() time.Duration {
			select {
			case asked <- struct{}{}:
			default:
			}
			return delay
		}
		handlerDone := make(chan struct{})
		h := svc.handler()
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			defer close(handlerDone) // this test sends one request only
			h.ServeHTTP(w, r)
		}))
		t.Cleanup(srv.Close) // waits for the handler to return

		conn, err := net.Dial("tcp", srv.Listener.Addr().String())
		require.NoError(t, err, "dialling the test server on loopback")
		defer conn.Close()
		_, err = fmt.Fprintf(conn, "GET /stock HTTP/1.1\r\nHost: stock.icecreamcorp.test\r\n\r\n")
		require.NoError(t, err, "sending GET /stock to the test server")

		select {
		case <-asked:
		case <-handlerDone:
			require.Fail(t, "GET /stock answered before the client hung up; want it to wait its delay (task 2: call s.delay() and wait on a timer)")
		case <-time.After(patience):
			require.Fail(t, fmt.Sprintf("waited %v for the handler to draw its delay with s.delay(); it never did (task 2)", patience))
		}

		hungUp := time.Now()
		require.NoError(t, conn.Close(), "hanging up")
		select {
		case <-handlerDone:
			t.Logf("the handler returned %v after the client hung up", time.Since(hungUp))
		case <-time.After(patience):
			assert.Fail(t, fmt.Sprintf("the handler was still waiting %v after its client hung up; want it to return at once (task 3: select on the timer and r.Context().Done())", patience))
			<-handlerDone // it will, when its delay is over
		}
		assert.Equal(t, int64(1), svc.abandoned.Value(), "s.abandoned is %d after the client hung up; want 1 (task 3)", svc.abandoned.Value())
	})
}
