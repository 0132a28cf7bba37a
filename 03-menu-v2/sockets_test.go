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

// Task 3: the same menu over real TCP connections, to a fake stock service
// on 127.0.0.1.
func TestRealSockets(t *testing.T) {
	leakcheck.Check(t)

	t.Run("leaves the request running", func(t *testing.T) {
		release := make(chan struct{})
		fake := fakestock.New(fakestock.Reply{Delay: 100 * time.Millisecond})
		stockURL, client := fakestock.Loopback(t, menutest.HoldUntil(release, fake))
		menu := menutest.Start(newMenuService(client, stockURL, 50*time.Millisecond).handler())

		// 504 at 50ms; only a menu that waits for the stock service waits 300ms.
		answered := menu.Wait(300 * time.Millisecond)
		close(release) // now the stock service works for 100ms, unless its caller has left
		require.True(t, answered && menu.Rec.Code == http.StatusGatewayTimeout, "the stock service was held: %v; want 504 after 50ms", menu)
		calls := fake.Await(t, 1, 5*time.Second)
		assert.Equal(t, fakestock.Completed, calls[0].Outcome, "got the stock %v, want completed: the race leaves it running (cancelling is step 05)", calls[0])
	})

	t.Run("serves the menu", func(t *testing.T) {
		stockURL, client := fakestock.Loopback(t, fakestock.New())
		rec := menutest.Get(newMenuService(client, stockURL, testTimeout).handler())

		require.Equal(t, http.StatusOK, rec.Code, "got %d %s, want 200", rec.Code, menutest.Body(rec))
		assert.JSONEq(t, menutest.MenuJSON, rec.Body.String(), "got the wrong menu")
	})

	t.Run("connection refused", func(t *testing.T) {
		rec := menutest.Get(newMenuService(&http.Client{Transport: &http.Transport{}}, menutest.ClosedPortURL(t), testTimeout).handler())

		assert.Equal(t, http.StatusBadGateway, rec.Code, "nothing listens at the stock URL: got %d %s, want 502", rec.Code, menutest.Body(rec))
		menutest.AssertJSONError(t, rec, "answer with writeError")
	})
}
