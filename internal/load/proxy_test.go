package load

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/icecreamcorp/go-cancellation-workshop/internal/leakcheck"
)

// upstream is a stand-in for the stock service: GET /stock answers at once,
// GET /slow never answers, GET /half sends half a body and stalls; both of
// the last two report on arrived when they have the request (and /half has
// sent its half), and on gone when their caller has left.
func upstream(t *testing.T) (addr string, arrived, gone chan string) {
	arrived, gone = make(chan string, 10), make(chan string, 10)
	mux := http.NewServeMux()
	mux.HandleFunc("GET /stock", func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, `{"stock":[]}`) })
	mux.HandleFunc("GET /slow", func(_ http.ResponseWriter, r *http.Request) {
		arrived <- "/slow"
		<-r.Context().Done()
		gone <- "/slow"
	})
	mux.HandleFunc("GET /half", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "100")
		io.WriteString(w, `{"stock":`)
		w.(http.Flusher).Flush()
		arrived <- "/half"
		<-r.Context().Done()
		gone <- "/half"
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.Listener.Addr().String(), arrived, gone
}

func TestProxy(t *testing.T) {
	t.Run("records each call, passes cancellation on and counts connections", func(t *testing.T) {
		leakcheck.Check(t)
		stockAddr, arrived, gone := upstream(t)
		px, err := startProxy(stockAddr, false)
		require.NoError(t, err, "startProxy")
		// A connection that carries no request is not counted. The proxy
		// accepts in order, so it has seen this one by the time it serves
		// the next.
		idle, err := net.Dial("tcp", px.ln.Addr().String())
		require.NoError(t, err, "dialling the proxy")
		idle.Close()
		t.Cleanup(px.close)
		tr := &http.Transport{}
		t.Cleanup(tr.CloseIdleConnections)
		client := &http.Client{Transport: tr}
		base := px.URL()[:len(px.URL())-len("/stock")]

		resp, err := client.Get(base + "/stock")
		require.NoError(t, err, "GET /stock through the proxy")
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		assert.Equal(t, `{"stock":[]}`, string(body), "the stock service's answer, through the proxy")

		for _, path := range []string{"/slow", "/half"} {
			ctx, cancel := context.WithCancel(t.Context())
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, base+path, nil)
			// Cancelled once the stock service has the request, not after a
			// fixed time: under Wine on a loaded machine 50 ms were
			// sometimes not enough for the request to reach it, which then
			// never saw a caller leave.
			go func() {
				select {
				case <-arrived:
					time.Sleep(50 * time.Millisecond) // the proxy copying /half's body
				case <-time.After(5 * time.Second):
				}
				cancel()
			}()
			if resp, err := client.Do(req); err == nil {
				io.ReadAll(resp.Body) //nolint:errcheck // cancelled halfway: that is the point
				resp.Body.Close()
			}
			select {
			case got := <-gone:
				assert.Equal(t, path, got, "the upstream request that saw its caller leave")
			case <-time.After(5 * time.Second):
				t.Errorf("GET %s through the proxy, cancelled by its client: the upstream request was still running 5s later; want the cancel passed on", path)
			}
		}

		deadline := time.Now().Add(5 * time.Second)
		calls, inFlight := px.finished(), px.inFlight.Load()
		for (len(calls) < 3 || inFlight > 0) && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
			calls, inFlight = px.finished(), px.inFlight.Load()
		}
		require.Len(t, calls, 3, "calls the proxy recorded: one answered, two cancelled (one halfway through its body)")
		assert.Zero(t, inFlight, "calls still in flight at the proxy after all three ended")
		assert.Zero(t, calls[0].Left, "the answered call: its caller never left")
		for _, c := range calls[1:] {
			assert.Positive(t, c.Left, "a cancelled call: when its caller left")
			assert.GreaterOrEqual(t, c.End, c.Left, "a cancelled call ends after its caller left")
			assert.Less(t, c.End-c.Left, time.Second, "a cancelled call ends at once after its caller left")
		}
		assert.Equal(t, int64(2), px.conns.Load(), "connections that carried a request: the answered call's, reused by the first cancelled call, then a new one, since a cancel over HTTP/1.1 closes its connection")
	})
	t.Run("closes a keep-alive connection that sends nothing more", func(t *testing.T) {
		leakcheck.Check(t)
		defer func(d time.Duration) { proxyIdleTimeout = d }(proxyIdleTimeout)
		proxyIdleTimeout = 100 * time.Millisecond
		stockAddr, _, _ := upstream(t)
		px, err := startProxy(stockAddr, false)
		require.NoError(t, err, "startProxy")
		t.Cleanup(px.close)
		conn, err := net.Dial("tcp", px.ln.Addr().String())
		require.NoError(t, err, "dialling the proxy")
		defer conn.Close()
		require.NoError(t, conn.SetDeadline(time.Now().Add(5*time.Second)), "SetDeadline")
		_, err = io.WriteString(conn, "GET /stock HTTP/1.1\r\nHost: stock\r\n\r\n")
		require.NoError(t, err, "sending GET /stock")
		r := bufio.NewReader(conn)
		resp, err := http.ReadResponse(r, nil)
		require.NoError(t, err, "reading the answer to GET /stock")
		io.Copy(io.Discard, resp.Body) //nolint:errcheck
		resp.Body.Close()
		_, err = r.ReadByte()
		assert.ErrorIs(t, err, io.EOF, "reading a connection idle after its request, with the proxy's IdleTimeout at 100ms: want it closed (EOF) within 5s; set the server's IdleTimeout")
	})
}
