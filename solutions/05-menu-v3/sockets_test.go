package main

import (
	"net/http"
	"testing"
	"time"

	"github.com/icecreamcorp/go-cancellation-workshop/internal/fakestock"
	"github.com/icecreamcorp/go-cancellation-workshop/internal/menutest"
)

// Task 1 over real TCP connections, to a fake stock service on 127.0.0.1, in
// real time: no goroutine outlives the request (guard's leak check).
func TestRealSockets(t *testing.T) {
	guard(t)

	t.Run("cancels", func(t *testing.T) {
		const timeout = 200 * time.Millisecond
		release, left := make(chan struct{}), make(chan time.Time, 1)
		stockURL, client := fakestock.Loopback(t, holdUntilLeft(release, left, fakestock.New(fakestock.Reply{})))
		t.Cleanup(func() { close(release) }) // before Loopback's cleanup, which waits for the handler
		menu := menutest.Start(newMenuService(client, stockURL, timeout).handler())

		must(t, menu.Wait(5*time.Second), "got %v, want 504 after %v", menu, timeout)
		must(t, menu.Rec.Code == http.StatusGatewayTimeout, "got %v, want 504", menu)
		select {
		case at := <-left:
			t.Logf("the stock service saw its request cancelled %v after the menu's timeout", at.Sub(menu.Start)-timeout)
		case <-time.After(300 * time.Millisecond): // a cancel arrives within a millisecond or so
			t.Errorf("stock call still running 300ms after the 504, want it cancelled (http.NewRequestWithContext: net/http closes the connection)")
		}
	})

	t.Run("nothing listens", func(t *testing.T) {
		rec := menutest.Get(newMenuService(&http.Client{Transport: &http.Transport{}}, menutest.ClosedPortURL(t), testTimeout).handler())
		check(t, rec.Code == http.StatusBadGateway, "got %d %s, want 502 (a refused connection is a failure of the stock service)", rec.Code, menutest.Body(rec))
	})
}
