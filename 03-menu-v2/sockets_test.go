package main

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/icecreamcorp/go-cancellation-workshop/internal/fakestock"
	"github.com/icecreamcorp/go-cancellation-workshop/internal/leakcheck"
	"github.com/icecreamcorp/go-cancellation-workshop/internal/menutest"
)

// Over a real TCP connection, to the fake stock service on 127.0.0.1.
func TestRealSockets(t *testing.T) {
	leakcheck.Check(t)

	t.Run("answers 504 and leaves the stock service's request running, over a real socket", func(t *testing.T) {
		requireNoLeak(t)
		requireTimesOut(t) // milliseconds; a menu that would fail below fails here, at once
		release := make(chan struct{})
		fake := fakestock.New(fakestock.Reply{Delay: 100 * time.Millisecond})
		stockURL, client := fakestock.Loopback(t, menutest.HoldUntil(release, fake))
		menu := menutest.Start(newMenuService(client, stockURL, 50*time.Millisecond).handler())

		// 504 at 50ms: only a menu that waits for the stock service waits 300ms.
		answered := menu.Wait(300 * time.Millisecond)
		close(release) // now the stock service works for 100ms, unless its caller has left
		require.True(t, answered, "%v; the stock service was held; want 504 after 50ms (task 1: race the call against a timer)", menu)
		require.Equal(t, http.StatusGatewayTimeout, menu.Rec.Code, "%v; want 504 (task 1)", menu)

		calls := fake.Await(t, 1, 5*time.Second)
		assert.Equal(t, fakestock.Completed, calls[0].Outcome,
			"the stock service's request, held until the menu had answered, then given 100ms of work: %v; want completed: the race leaves it running, over a real TCP connection too (task 1: not http.Client.Timeout — cancelling is step 05)", calls[0])
	})

	t.Run("serves the menu from a stock service on a real socket", func(t *testing.T) {
		stockURL, client := fakestock.Loopback(t, fakestock.New(fakestock.Reply{}))
		rec := menutest.Get(newMenuService(client, stockURL, testTimeout).handler())

		require.Equal(t, http.StatusOK, rec.Code, "menu answered %d: %s; want 200 (step 02, task 1)", rec.Code, menutest.Body(rec))
		assert.JSONEq(t, menutest.MenuJSON, rec.Body.String(), "menu answered the wrong menu (step 02, task 1)")
	})

	t.Run("answers 502 when nothing listens at the stock URL", func(t *testing.T) {
		rec := menutest.Get(newMenuService(&http.Client{Transport: &http.Transport{}}, menutest.ClosedPortURL(t), testTimeout).handler())

		assert.Equal(t, http.StatusBadGateway, rec.Code, "menu answered %d: %s; want 502 (step 02, task 2: a connection refused is a failure of the stock service)", rec.Code, menutest.Body(rec))
		menutest.AssertJSONError(t, rec, "step 02, task 2")
	})
}
