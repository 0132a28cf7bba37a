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
	requireNoLeak(t)
	leakcheck.Check(t)

	t.Run("cancels the stock service's request over a real socket, within moments of the timeout", func(t *testing.T) {
		requireCancelsAtTimeout(t) // milliseconds; a menu that would fail below fails here, at once
		const timeout = 200 * time.Millisecond
		release, left := make(chan struct{}), make(chan time.Time, 1)
		fake := fakestock.New(fakestock.Reply{})
		stockURL, client := fakestock.Loopback(t, holdUntilLeft(release, left, fake))
		t.Cleanup(func() { close(release) }) // before Loopback's cleanup, which waits for the handler
		menu := menutest.Start(newMenuService(client, stockURL, timeout).handler())

		require.True(t, menu.Wait(5*time.Second), "%v; the stock service holds its answer; want 504 after %v (task 1)", menu, timeout)
		require.Equal(t, http.StatusGatewayTimeout, menu.Rec.Code, "%v; want 504 (task 1)", menu)
		select {
		case at := <-left:
			late := at.Sub(menu.Start) - timeout
			t.Logf("the stock service's handler saw its request cancelled %v after the menu's timeout", late)
			assert.Less(t, late, time.Second, "the stock service saw the cancellation %v after the menu's timeout; want within moments (task 1)", late)
		case <-time.After(300 * time.Millisecond): // a cancel reaches the stock service within a millisecond or so
			assert.Fail(t, "the stock call was not cancelled",
				"%v, and 300ms later the stock service, over a real TCP connection, was still working on its request: nothing cancelled it (task 1: http.NewRequestWithContext with the timeout's context — net/http closes the connection when the context ends)", menu)
		}
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
