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

// The lesson of version 1: the menu is exactly as slow as the stock service.
// In virtual time, "exactly" means to the nanosecond.
func TestMenuWaits(t *testing.T) {
	leakcheck.Check(t)

	for _, delay := range []time.Duration{0, 250 * time.Millisecond, 4900 * time.Millisecond, 10 * time.Second} {
		t.Run("answers when a stock service that takes "+delay.String()+" answers, not before, not after", func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				stock := menutest.NewStock(t, fakestock.Reply{Delay: delay})
				menu := menutest.Start(newTestMenu(stock))

				if delay > 0 {
					time.Sleep(delay - time.Nanosecond)
					synctest.Wait()
					require.False(t, menu.Answered(),
						"%v; the stock service had not answered yet (it takes %v); want 200 once it has (task 1 first: serve the menu; then task 4: version 1 waits for the stock service)", menu, delay)
					time.Sleep(time.Nanosecond)
				}
				synctest.Wait()
				require.True(t, menu.Answered(), "%v; the stock service answered after %v; want 200 then (task 1 first: serve the menu; then task 4: version 1 waits for the stock service, however long it takes)", menu, delay)
				assert.Equal(t, http.StatusOK, menu.Rec.Code, "%v; want 200 after %v (task 1: serve the menu)", menu, delay)
				assert.Equal(t, delay, menu.Took, "%v; want it to answer after exactly %v, as the stock service did (task 4: no timeout of its own in version 1 — that is step 03)", menu, delay)
			})
		})
	}
}

// Over a real TCP connection, to the fake stock service on 127.0.0.1.
func TestRealSockets(t *testing.T) {
	leakcheck.Check(t)

	t.Run("serves the menu from a stock service on a real socket", func(t *testing.T) {
		stockURL, client := fakestock.Loopback(t, fakestock.New(fakestock.Reply{}))
		rec := menutest.Get(newMenuService(client, stockURL).handler())

		require.Equal(t, http.StatusOK, rec.Code, "menu answered %d: %s; want 200 (task 1)", rec.Code, menutest.Body(rec))
		assert.JSONEq(t, menutest.MenuJSON, rec.Body.String(), "menu answered the wrong menu (task 1)")
	})

	t.Run("answers 502 when the stock service closes the connection without answering", func(t *testing.T) {
		stockURL, client := fakestock.Loopback(t, fakestock.New(fakestock.Reply{Drop: true}))
		rec := menutest.Get(newMenuService(client, stockURL).handler())

		assert.Equal(t, http.StatusBadGateway, rec.Code, "menu answered %d: %s; want 502 (task 2)", rec.Code, menutest.Body(rec))
		menutest.AssertJSONError(t, rec, "task 2")
	})

	t.Run("answers 502 when nothing listens at the stock URL", func(t *testing.T) {
		rec := menutest.Get(newMenuService(&http.Client{Transport: &http.Transport{}}, menutest.ClosedPortURL(t)).handler())

		assert.Equal(t, http.StatusBadGateway, rec.Code, "menu answered %d: %s; want 502 (task 2: a connection refused is a failure of the stock service)", rec.Code, menutest.Body(rec))
		menutest.AssertJSONError(t, rec, "task 2")
	})
}
