package inproc

import (
	"context"
	"errors"
	"io"
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/icecreamcorp/go-cancellation-workshop/internal/leakcheck"
)

func get(t *testing.T, ctx context.Context, c *http.Client) (*http.Response, error) {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://stock.test/stock?x=1", nil)
	require.NoError(t, err)
	return c.Do(req)
}

func TestTransport(t *testing.T) {
	leakcheck.Check(t)

	t.Run("serves the handler's status, headers and body", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			tr := New(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				assert.Equal(t, "/stock?x=1", r.RequestURI, "the handler should see the request URI")
				w.Header().Set("X-Flavour", "pistachio")
				w.WriteHeader(http.StatusTeapot)
				io.WriteString(w, "hello")
			}))
			resp, err := get(t, t.Context(), tr.Client())
			require.NoError(t, err)
			body, err := io.ReadAll(resp.Body)
			require.NoError(t, err)
			require.NoError(t, resp.Body.Close())
			assert.Equal(t, http.StatusTeapot, resp.StatusCode)
			assert.Equal(t, "pistachio", resp.Header.Get("X-Flavour"))
			assert.Equal(t, "hello", string(body))
			assert.Zero(t, tr.OpenBodies(), "the body was closed")
		})
	})

	t.Run("ends the handler's context when the caller's deadline passes", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			start := time.Now()
			var handlerGaveUp time.Duration
			tr := New(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				<-r.Context().Done()
				handlerGaveUp = time.Since(start)
			}))
			ctx, cancel := context.WithTimeout(t.Context(), time.Second)
			defer cancel()
			_, err := get(t, ctx, tr.Client())
			assert.ErrorIs(t, err, context.DeadlineExceeded)
			assert.Equal(t, time.Second, time.Since(start), "the call should fail when the deadline passes")
			synctest.Wait()
			assert.Equal(t, time.Second, handlerGaveUp, "the handler's context should end with the caller's")
		})
	})

	t.Run("honours http.Client's own Timeout", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			tr := New(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }))
			c := &http.Client{Transport: tr, Timeout: 2 * time.Second}
			start := time.Now()
			_, err := get(t, t.Context(), c)
			var ne interface{ Timeout() bool }
			require.ErrorAs(t, err, &ne)
			assert.True(t, ne.Timeout(), "the error should say it was a timeout: %v", err)
			assert.Equal(t, 2*time.Second, time.Since(start))
		})
	})

	t.Run("a body that stalls fails its Read when the deadline passes", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			tr := New(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				io.WriteString(w, "{")
				w.(http.Flusher).Flush()
				<-r.Context().Done()
			}))
			ctx, cancel := context.WithTimeout(t.Context(), time.Second)
			defer cancel()
			start := time.Now()
			resp, err := get(t, ctx, tr.Client())
			require.NoError(t, err, "the headers came at once")
			assert.Zero(t, time.Since(start))
			_, err = io.ReadAll(resp.Body)
			assert.ErrorIs(t, err, context.DeadlineExceeded)
			assert.Equal(t, time.Second, time.Since(start))
			resp.Body.Close()
		})
	})

	t.Run("closing the body early ends the handler's context", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			ended := false
			tr := New(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(http.StatusOK)
				<-r.Context().Done()
				ended = true
			}))
			resp, err := get(t, t.Context(), tr.Client())
			require.NoError(t, err)
			assert.Equal(t, 1, tr.OpenBodies(), "one body handed out and not closed")
			resp.Body.Close()
			synctest.Wait()
			assert.True(t, ended, "the handler should see its client hang up")
			assert.Zero(t, tr.OpenBodies())
		})
	})

	t.Run("a handler that hangs up gives the client an error", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			before := New(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { panic(http.ErrAbortHandler) }))
			_, err := get(t, t.Context(), before.Client())
			assert.ErrorIs(t, err, ErrDropped)
			assert.ErrorIs(t, err, io.EOF, "a dropped connection reads as EOF, as with net/http")

			midway := New(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				io.WriteString(w, `{"sto`)
				panic(http.ErrAbortHandler)
			}))
			resp, err := get(t, t.Context(), midway.Client())
			require.NoError(t, err)
			_, err = io.ReadAll(resp.Body)
			assert.True(t, errors.Is(err, io.ErrUnexpectedEOF), "want unexpected EOF, got %v", err)
			resp.Body.Close()
		})
	})

	t.Run("a request whose context has ended never reaches the handler", func(t *testing.T) {
		called := false
		tr := New(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { called = true }))
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		_, err := get(t, ctx, tr.Client())
		assert.ErrorIs(t, err, context.Canceled)
		assert.False(t, called)
	})
}
