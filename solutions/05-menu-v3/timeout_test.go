package main

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/icecreamcorp/go-cancellation-workshop/internal/fakestock"
	"github.com/icecreamcorp/go-cancellation-workshop/internal/menutest"
)

// Task 1: the menu answers 504 at its timeout, as version 2 did, and the
// stock call ends then too: in step 03 it completed 9s later.
func TestTimeout(t *testing.T) {
	guard(t)
	const fix = "a context with a timeout, passed to the request: http.NewRequestWithContext; no goroutine, no channel"
	for _, timeout := range []time.Duration{time.Second, 250 * time.Millisecond} {
		bubble(t, timeout.String(), func(t *testing.T) {
			stock := menutest.NewStock(t, slow)
			menu := menutest.Start(newMenuService(stock.Client(), menutest.StockURL, timeout).handler())
			requireAnswer(t, menu, timeout, fix)
			menutest.CheckAnswer(t, menu.Rec, http.StatusGatewayTimeout)
			check(t, strings.Contains(menu.Rec.Body.String(), menutest.StockURL), "got %v, want the call's own error beside errStockTooSlow (wrap both)", menu)
			requireAbandoned(t, stock, menu, timeout, fix)
		})
	}

	bubble(t, "200 just in time", func(t *testing.T) {
		stock := menutest.NewStock(t, fakestock.Reply{Delay: testTimeout - time.Nanosecond})
		menu := menutest.Start(newTestMenu(stock))
		requireAnswer(t, menu, testTimeout-time.Nanosecond, "an answer in time is served")
		menutest.CheckAnswer(t, menu.Rec, http.StatusOK)
	})

	bubble(t, "100 at once", func(t *testing.T) {
		stock := menutest.NewStock(t, slow)
		h := newTestMenu(stock)
		menus := make([]*menutest.Pending, 100)
		for i := range menus {
			menus[i] = menutest.Start(h)
		}
		pass(testTimeout)
		for _, menu := range menus {
			must(t, menu.Answered() && menu.Rec.Code == http.StatusGatewayTimeout, "got %v, want 504 after 1s", menu)
		}
		check(t, stock.InFlight() == 0, "stock calls still running after 100 menus answered 504, want none (each menu cancels its own)")
	})
}
