package main

import (
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/icecreamcorp/go-cancellation-workshop/internal/fakestock"
	"github.com/icecreamcorp/go-cancellation-workshop/internal/leakcheck"
	"github.com/icecreamcorp/go-cancellation-workshop/internal/menutest"
)

// Task 4: the menu is exactly as slow as the stock service. In virtual time,
// "exactly" means to the nanosecond.
func TestMenuWaits(t *testing.T) {
	for _, delay := range []time.Duration{0, 250 * time.Millisecond, 4900 * time.Millisecond, 10 * time.Second} {
		if !t.Run(delay.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				stock := menutest.NewStock(t, fakestock.Reply{Delay: delay})
				menu := menutest.Start(newTestMenu(stock))

				if delay > 0 {
					time.Sleep(delay - time.Nanosecond)
					synctest.Wait()
					require.False(t, menu.Answered(), "got %v, want 200 once the stock service answers, after %v", menu, delay)
					time.Sleep(time.Nanosecond)
				}
				synctest.Wait()
				require.True(t, menu.Answered(), "got %v, want 200 after %v, when the stock service answered (no timeout of its own in version 1)", menu, delay)
				require.Equal(t, http.StatusOK, menu.Rec.Code, "got %v, want 200 after %v (no timeout of its own in version 1)", menu, delay)
			})
		}) {
			return // the first failure says enough
		}
	}
}

// Task 4: the same menu, over real TCP connections on 127.0.0.1.
func TestRealSockets(t *testing.T) {
	leakcheck.Check(t)

	t.Run("serves the menu", func(t *testing.T) {
		stockURL, client := fakestock.Loopback(t, fakestock.New())
		rec := menutest.Get(newMenuService(client, stockURL).handler())

		require.Equal(t, http.StatusOK, rec.Code, "got %d %s, want 200", rec.Code, menutest.Body(rec))
		assert.JSONEq(t, menutest.MenuJSON, rec.Body.String(), "got the wrong menu")
	})

	t.Run("connection dropped", func(t *testing.T) {
		stockURL, client := fakestock.Loopback(t, fakestock.New(fakestock.Reply{Drop: true}))
		rec := menutest.Get(newMenuService(client, stockURL).handler())

		assert.Equal(t, http.StatusBadGateway, rec.Code, "the stock service hung up: got %d %s, want 502", rec.Code, menutest.Body(rec))
		menutest.AssertJSONError(t, rec, "answer with writeError")
	})

	t.Run("connection refused", func(t *testing.T) {
		rec := menutest.Get(newMenuService(&http.Client{Transport: &http.Transport{}}, menutest.ClosedPortURL(t)).handler())

		assert.Equal(t, http.StatusBadGateway, rec.Code, "nothing listens at the stock URL: got %d %s, want 502", rec.Code, menutest.Body(rec))
		menutest.AssertJSONError(t, rec, "answer with writeError")
	})
}
