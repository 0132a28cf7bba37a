package fakestock

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/icecreamcorp/go-cancellation-workshop/internal/leakcheck"
	"github.com/icecreamcorp/go-cancellation-workshop/internal/memnet"
)

// fetch sends GET url with ctx and reads the whole body: the status and the
// body, or the first error.
func fetch(ctx context.Context, client *http.Client, url string) (int, string, error) {
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	resp, err := client.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), err
}

// Each reply of a script, called over memnet by a client that gives up after
// 1s, or waits; what the client got, and what the fake recorded.
func TestService(t *testing.T) {
	leakcheck.Check(t)
	for _, tc := range []struct {
		name    string
		reply   Reply
		giveUp  bool
		status  int
		body    string // "" for any
		err     error
		outcome Outcome
		took    time.Duration
	}{
		{"delay", Reply{Delay: 3 * time.Second}, false, 200, StockJSON(3 * time.Second), nil, Completed, 3 * time.Second},
		{"caller leaves", Reply{Delay: 10 * time.Second}, true, 0, "", context.DeadlineExceeded, Abandoned, time.Second},
		{"status and body", Reply{Status: 503, Body: `{"error":"busy"}`}, false, 503, `{"error":"busy"}`, nil, Completed, 0},
		{"stalled body", Reply{StallBody: true}, true, 200, `{"stock":[`, context.DeadlineExceeded, Abandoned, time.Second},
		{"drop", Reply{Delay: time.Second, Drop: true}, false, 0, "", io.EOF, Dropped, time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				fake := New(tc.reply)
				ctx, cancel := context.WithCancel(t.Context())
				if tc.giveUp {
					ctx, cancel = context.WithTimeout(t.Context(), time.Second)
				}
				defer cancel()
				srv := memnet.Serve(t, fake)
				status, body, err := fetch(ctx, srv.Client(), srv.URL+"/stock")
				if status != tc.status || (tc.body != "" && body != tc.body) || !errors.Is(err, tc.err) {
					t.Errorf("got %d %q, %v; want %d %q, %v", status, body, err, tc.status, tc.body, tc.err)
				}
				synctest.Wait()
				if calls := fake.Calls(); len(calls) != 1 || calls[0].Outcome != tc.outcome || calls[0].Took() != tc.took || fake.InFlight() != 0 {
					t.Errorf("got calls %v, %d in flight; want one %s after %v", calls, fake.InFlight(), tc.outcome, tc.took)
				}
			})
		})
	}
}

// fatalRecorder keeps the message of Fatalf instead of stopping the test.
type fatalRecorder struct {
	testing.TB
	msg string
}

func (r *fatalRecorder) Helper()                           {}
func (r *fatalRecorder) Fatalf(format string, args ...any) { r.msg = format }

// The script plays in order, its last reply again and again; Await fails the
// test 1ns before a call ends, and returns the calls once it has.
func TestScript(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fake := New(Reply{Delay: time.Second}, Reply{Size: 1 << 17}, Reply{Body: "not json"})
		srv := memnet.Serve(t, fake)
		go fetch(t.Context(), srv.Client(), srv.URL+"/stock")
		r := &fatalRecorder{TB: t}
		if calls := fake.Await(r, 1, time.Second-1); calls != nil || !strings.Contains(r.msg, "waited %v for the fake stock service") || fake.InFlight() != 1 || fake.Started() != 1 {
			t.Fatalf("Await, 1ns before the delay: got %v and %q, %d in flight; want the test failed, 1 in flight", calls, r.msg, fake.InFlight())
		}
		if calls := fake.Await(t, 1, time.Second); len(calls) != 1 || calls[0].Took() != time.Second {
			t.Fatalf("Await once the delay is over: got %v, want request 1 completed after 1s", calls)
		}
		for i, want := range []string{"oversized", "not json", "not json"} {
			_, body, err := fetch(t.Context(), srv.Client(), srv.URL+"/stock")
			if want == "oversized" && (len(body) != 1<<17 || !json.Valid([]byte(body))) || want != "oversized" && body != want || err != nil {
				t.Errorf("request %d: got %.40q (%d bytes), %v; want %s", i+2, body, len(body), err, want)
			}
		}
	})
}

// Over a real socket, a caller that hangs up is recorded as abandoned at
// once; a patient caller gets the stock.
func TestLoopback(t *testing.T) {
	leakcheck.Check(t)
	fake := New(Reply{Delay: time.Minute}, Reply{})
	ctx, hangUp := context.WithCancel(t.Context())
	stockURL, client := Loopback(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hangUp() // once its request is in
		fake.ServeHTTP(w, r)
	}))
	if _, _, err := fetch(ctx, client, stockURL); !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want context.Canceled", err)
	}
	if call := fake.Await(t, 1, 5*time.Second)[0]; call.Outcome != Abandoned {
		t.Errorf("got %v, want abandoned at once, not after its minute", call)
	}
	if _, body, err := fetch(t.Context(), client, stockURL); body != StockJSON(0) {
		t.Errorf("a patient caller: got %s, %v; want the stock", body, err)
	}
}

// The fake sends the real stock service's Content-Type (01's writeJSON), or
// the scripted one.
func TestContentType(t *testing.T) {
	for want, reply := range map[string]Reply{
		"application/json; charset=utf-8": {},
		"text/html":                       {ContentType: "text/html"},
	} {
		synctest.Test(t, func(t *testing.T) {
			srv := memnet.Serve(t, New(reply))
			resp, err := srv.Client().Get(srv.URL + "/stock")
			if err != nil {
				t.Fatalf("GET /stock: %v", err)
			}
			resp.Body.Close()
			if got := resp.Header.Get("Content-Type"); got != want {
				t.Errorf("got Content-Type %q, want %q", got, want)
			}
		})
	}
}

// The fake routes as the real stock service's ServeMux does: HEAD /stock is
// GET's, another method a 405 with Allow, another path a 404.
func TestRoutes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := memnet.Serve(t, New())
		for _, tc := range []struct {
			method, path string
			want         int
			allow        string
		}{
			{method: http.MethodGet, path: "/stock", want: http.StatusOK},
			{method: http.MethodHead, path: "/stock", want: http.StatusOK},
			{method: http.MethodPost, path: "/stock", want: http.StatusMethodNotAllowed, allow: "GET, HEAD"},
			{method: http.MethodGet, path: "/stock/stock", want: http.StatusNotFound},
		} {
			req, _ := http.NewRequest(tc.method, srv.URL+tc.path, nil)
			resp, err := srv.Client().Do(req)
			if err != nil {
				t.Fatalf("%s %s: %v", tc.method, tc.path, err)
			}
			resp.Body.Close()
			if resp.StatusCode != tc.want || resp.Header.Get("Allow") != tc.allow {
				t.Errorf("%s %s: got %d, Allow %q; want %d, Allow %q", tc.method, tc.path, resp.StatusCode, resp.Header.Get("Allow"), tc.want, tc.allow)
			}
		}
	})
}
