package fakestock

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/icecreamcorp/go-cancellation-workshop/internal/leakcheck"
	"github.com/icecreamcorp/go-cancellation-workshop/internal/memnet"
)

// fetch calls the fake over a real HTTP connection in memory and reads the
// whole body, returning the status and body, or the first error.
func fetch(ctx context.Context, t testing.TB, s *Service) (int, string, error) {
	srv := memnet.Serve(t, s)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/stock", nil)
	if err != nil {
		return 0, "", err
	}
	resp, err := srv.Client().Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), err
}

func TestService(t *testing.T) {
	leakcheck.Check(t)

	t.Run("answers the stock JSON after its delay, and records the call as completed", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			fake := New(Reply{Delay: 3 * time.Second})
			var status int
			var body string
			go func() { status, body, _ = fetch(t.Context(), t, fake) }()

			time.Sleep(3*time.Second - time.Nanosecond)
			synctest.Wait()
			assert.Empty(t, fake.Calls(), "no answer before the delay")
			assert.Equal(t, 1, fake.InFlight())

			time.Sleep(time.Nanosecond)
			synctest.Wait()
			assert.Equal(t, http.StatusOK, status)
			assert.JSONEq(t, StockJSON(3*time.Second), body)
			calls := fake.Calls()
			require.Len(t, calls, 1)
			assert.Equal(t, Completed, calls[0].Outcome)
			assert.Equal(t, 3*time.Second, calls[0].Took())
			assert.Zero(t, fake.InFlight())
		})
	})

	t.Run("records the instant the caller went away as abandoned", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			fake := New(Reply{Delay: 10 * time.Second})
			ctx, cancel := context.WithTimeout(t.Context(), time.Second)
			defer cancel()
			_, _, err := fetch(ctx, t, fake)
			assert.ErrorIs(t, err, context.DeadlineExceeded)
			synctest.Wait()
			calls := fake.Calls()
			require.Len(t, calls, 1)
			assert.Equal(t, Abandoned, calls[0].Outcome)
			assert.Equal(t, time.Second, calls[0].Took())
		})
	})

	t.Run("plays its script in order and repeats the last reply", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			fake := New(Reply{Status: http.StatusServiceUnavailable, Body: `{"error":"busy"}`}, Reply{Body: "not json"})
			for i, want := range []struct {
				status int
				body   string
			}{{503, `{"error":"busy"}`}, {200, "not json"}, {200, "not json"}} {
				status, body, err := fetch(t.Context(), t, fake)
				require.NoError(t, err)
				assert.Equal(t, want.status, status, "request %d", i+1)
				assert.Equal(t, want.body, body, "request %d", i+1)
			}
			assert.Equal(t, 3, fake.Started())
		})
	})

	t.Run("sends an oversized body that is valid JSON of exactly Size bytes", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			const size = 3 << 20
			_, body, err := fetch(t.Context(), t, New(Reply{Size: size}))
			require.NoError(t, err)
			assert.Len(t, body, size)
			assert.True(t, json.Valid([]byte(body)), "the oversized body should still be valid JSON")
		})
	})

	t.Run("stalls after the headers until the caller leaves", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			fake := New(Reply{StallBody: true})
			ctx, cancel := context.WithTimeout(t.Context(), time.Second)
			defer cancel()
			status, _, err := fetch(ctx, t, fake)
			assert.Equal(t, http.StatusOK, status, "the headers should come at once")
			assert.ErrorIs(t, err, context.DeadlineExceeded, "reading the body should fail at the deadline")
			synctest.Wait()
			calls := fake.Calls()
			require.Len(t, calls, 1)
			assert.Equal(t, Abandoned, calls[0].Outcome)
			assert.Equal(t, time.Second, calls[0].Took())
		})
	})

	t.Run("hangs up without a response when told to drop", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			fake := New(Reply{Delay: time.Second, Drop: true})
			_, _, err := fetch(t.Context(), t, fake)
			assert.ErrorIs(t, err, io.EOF)
			synctest.Wait()
			calls := fake.Calls()
			require.Len(t, calls, 1)
			assert.Equal(t, Dropped, calls[0].Outcome)
			assert.Equal(t, time.Second, calls[0].Took())
		})
	})
}

// fatalRecorder keeps the message of Fatalf instead of stopping the test.
type fatalRecorder struct {
	testing.TB
	msg string
}

func (r *fatalRecorder) Helper()                           {}
func (r *fatalRecorder) Fatalf(format string, args ...any) { r.msg = format }

func TestAwait(t *testing.T) {
	t.Run("says what it waited for when the calls do not end in time", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			fake := New(Reply{Delay: time.Hour})
			ctx, cancel := context.WithCancel(t.Context())
			go fetch(ctx, t, fake)
			r := &fatalRecorder{TB: t}
			calls := fake.Await(r, 1, time.Minute)
			assert.Nil(t, calls)
			assert.Contains(t, r.msg, "waited %v for the fake stock service to finish")
			cancel()
		})
	})
}

func TestLoopback(t *testing.T) {
	leakcheck.Check(t)
	fake := New(Reply{Delay: time.Minute}, Reply{})
	arrived := make(chan struct{}, 2)
	stockURL, client := Loopback(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		arrived <- struct{}{}
		fake.ServeHTTP(w, r)
	}))

	t.Run("a caller that hangs up is recorded as abandoned, over a real socket", func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, stockURL, nil)
		require.NoError(t, err)
		errc := make(chan error, 1)
		go func() {
			resp, err := client.Do(req)
			if err == nil {
				resp.Body.Close()
			}
			errc <- err
		}()
		select {
		case <-arrived:
		case <-time.After(5 * time.Second):
			t.Fatal("waited 5s for the request to reach the fake over loopback")
		}
		hungUp := time.Now()
		cancel()
		require.ErrorIs(t, <-errc, context.Canceled)
		calls := fake.Await(t, 1, 5*time.Second)
		assert.Equal(t, Abandoned, calls[0].Outcome)
		assert.Less(t, calls[0].Ended.Sub(hungUp), time.Second, "the fake should notice a hang-up at once, not after its minute")
	})

	t.Run("a patient caller gets the stock", func(t *testing.T) {
		resp, err := client.Get(stockURL)
		require.NoError(t, err)
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		assert.JSONEq(t, StockJSON(0), string(b))
	})
}
