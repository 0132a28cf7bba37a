package main

import (
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"github.com/icecreamcorp/go-cancellation-workshop/internal/fakestock"
	"github.com/icecreamcorp/go-cancellation-workshop/internal/leakcheck"
	"github.com/icecreamcorp/go-cancellation-workshop/internal/memnet"
	"github.com/icecreamcorp/go-cancellation-workshop/internal/menutest"
)

// TestMenuWaits: the menu is exactly as slow as the stock service, to the
// nanosecond of virtual time.
func TestMenuWaits(t *testing.T) {
	for _, delay := range []time.Duration{0, 250 * time.Millisecond, 4900 * time.Millisecond, 10 * time.Second, time.Hour} {
		if !t.Run(delay.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				client := memnet.Serve(t, fakestock.New(fakestock.Reply{Delay: delay})).Client() // an *http.Transport, as main's
				menu := menutest.Start(newMenuService(client, menutest.StockURL).handler())
				time.Sleep(max(delay-1, 0))
				synctest.Wait()
				early := delay > 0 && menu.Answered()
				time.Sleep(min(delay, 1))
				synctest.Wait()
				if early || !menu.Answered() || menu.Rec.Code != http.StatusOK {
					t.Fatalf("got %v; want 200 after %v, when the stock answers (no timeout of its own in version 1)", menu, delay)
				}
			})
		}) {
			return // the first failure says enough
		}
	}
}

// TestRealSockets: the same menu over real TCP connections on 127.0.0.1.
func TestRealSockets(t *testing.T) {
	leakcheck.Check(t)
	t.Run("serves the menu", func(t *testing.T) {
		stockURL, client := fakestock.Loopback(t, fakestock.New())
		menutest.CheckAnswer(t, menutest.Get(newMenuService(client, stockURL).handler()), http.StatusOK)
	})
	t.Run("connection dropped", func(t *testing.T) {
		stockURL, client := fakestock.Loopback(t, fakestock.New(fakestock.Reply{Drop: true}))
		menutest.CheckAnswer(t, menutest.Get(newMenuService(client, stockURL).handler()), http.StatusBadGateway)
	})
	t.Run("connection refused", func(t *testing.T) {
		client := &http.Client{Transport: &http.Transport{}}
		menutest.CheckAnswer(t, menutest.Get(newMenuService(client, menutest.ClosedPortURL(t)).handler()), http.StatusBadGateway)
	})
}
