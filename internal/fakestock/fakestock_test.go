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

// fetch calls the fake over a real HTTP connection in memory and reads the
// whole body, returning the status and body, or the first error.
func fetch(ctx context.Context, t testing.TB, s *Service) (int, string, error) {
	srv := memnet.Serve(t, s)
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/stock", nil)
	resp, err := srv.Client().Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), err
}

// Each reply of a script, called by a client that gives up after 1s, or
// waits; what the client got, and what the fake recorded.
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
				status, body, err := fetch(ctx, t, fake)
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

func TestScript(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fake := New(Reply{Delay: time.Second}, Reply{Size: 1 << 17}, Reply{Body: "not json"})
		go fetch(t.Context(), t, fake)
		time.Sleep(time.Second - 1)
		synctest.Wait()
		if len(fake.Calls()) != 0 || fake.InFlight() != 1 || fake.Started() != 1 {
			t.Fatalf("1ns before the delay: got %v, %d in flight", fake.Calls(), fake.InFlight())
		}
		time.Sleep(time.Nanosecond)
		synctest.Wait()
		for i, want := range []string{"oversized", "not json", "not json"} { // the last reply repeats
			_, body, err := fetch(t.Context(), t, fake)
			if want == "oversized" && (len(body) != 1<<17 || !json.Valid([]byte(body))) || want != "oversized" && body != want || err != nil {
				t.Errorf("request %d: got %.40q (%d bytes), %v; want %s", i+2, body, len(body), err, want)
			}
		}
	})
}

// fatalRecorder keeps the message of Fatalf instead of stopping the test.
type fatalRecorder struct {
	testing.TB
	msg string
}

func (r *fatalRecorder) Helper()                           {}
func (r *fatalRecorder) Fatalf(format string, args ...any) { r.msg = format }

func TestAwaitSaysWhatItWaitedFor(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fake := New(Reply{Delay: time.Hour})
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		go fetch(ctx, t, fake)
		r := &fatalRecorder{TB: t}
		if calls := fake.Await(r, 1, time.Minute); calls != nil || !strings.Contains(r.msg, "waited %v for the fake stock service") {
			t.Errorf("Await on a call that never ends: got %v and %q, want the test failed", calls, r.msg)
		}
	})
}

// Over a real socket, a caller that hangs up is recorded as abandoned at
// once; a patient caller gets the stock.
func TestLoopback(t *testing.T) {
	leakcheck.Check(t)
	fake := New(Reply{Delay: time.Minute}, Reply{})
	arrived := make(chan struct{}, 2)
	stockURL, client := Loopback(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		arrived <- struct{}{}
		fake.ServeHTTP(w, r)
	}))
	ctx, cancel := context.WithCancel(t.Context())
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, stockURL, nil)
	go func() {
		select { // hang up once the request is in
		case <-arrived:
		case <-time.After(5 * time.Second):
		}
		cancel()
	}()
	hungUp := time.Now()
	if _, err := client.Do(req); !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want context.Canceled", err)
	}
	if call := fake.Await(t, 1, 5*time.Second)[0]; call.Outcome != Abandoned || call.Ended.Sub(hungUp) > 5*time.Second {
		t.Errorf("got %v, want abandoned at once, not after its minute", call)
	}
	resp, err := client.Get(stockURL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if b, _ := io.ReadAll(resp.Body); string(b) != StockJSON(0) {
		t.Errorf("a patient caller: got %s, want the stock", b)
	}
}
