package main

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"testing/synctest"
	"time"

	"github.com/icecreamcorp/go-cancellation-workshop/internal/fakestock"
	"github.com/icecreamcorp/go-cancellation-workshop/internal/leakcheck"
	"github.com/icecreamcorp/go-cancellation-workshop/internal/menutest"
)

// TestStockKeepsWorking passes on a correct version 2: it shows the waste
// that step 05 removes.
func TestStockKeepsWorking(t *testing.T) {
	for _, n := range []int{1, 100} { // menus at once
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				stock := menutest.NewStock(t, fakestock.Reply{Delay: 10 * time.Second})
				menus := make([]*menutest.Pending, n)
				ctx, served := context.WithCancel(t.Context()) // net/http cancels it once the handler returns
				for i := range menus {
					menus[i] = menutest.StartRequest(newTestMenu(stock), httptest.NewRequestWithContext(ctx, http.MethodGet, "/menu", nil))
				}
				time.Sleep(testTimeout)
				synctest.Wait()
				for _, menu := range menus {
					if !menu.Answered() || menu.Rec.Code != http.StatusGatewayTimeout {
						t.Fatalf("got %v; want 504 after 1s", menu)
					}
				}
				served()
				synctest.Wait()
				if running, ended := stock.InFlight(), len(stock.Calls()); running != n || ended != 0 {
					t.Fatalf("after the 504s: got %d stock requests running, %d ended; want %d running (race, do not cancel: that is step 05)", running, ended, n)
				}
				t.Logf("menus that answered 504 after 1s: %d; stock requests still running, for nobody: %d", n, n)
				time.Sleep(10*time.Second - testTimeout)
				synctest.Wait()
				for _, call := range stock.Calls() {
					if call.Outcome != fakestock.Completed || call.Took() != 10*time.Second {
						t.Fatalf("got the stock %v, want completed after 10s", call)
					}
				}
				if got := len(stock.Calls()); got != n {
					t.Fatalf("after 10s: got %d stock requests completed, want %d", got, n)
				}
				t.Logf("after 10s the stock service completed all %d: 9s of work each, for callers who had left", n)
				if open := stock.OpenBodies(); open != 0 {
					t.Errorf("got %d late answers' bodies left open, want 0 (defer resp.Body.Close())", open)
				}
			})
		})
	}
}

// TestRealSockets: the same over real TCP connections on 127.0.0.1.
func TestRealSockets(t *testing.T) {
	leakcheck.Check(t)
	t.Run("stock keeps working", func(t *testing.T) {
		release := make(chan struct{})
		fake := fakestock.New(fakestock.Reply{Delay: 100 * time.Millisecond})
		stockURL, client := fakestock.Loopback(t, menutest.HoldUntil(release, fake))
		menu := menutest.Start(newMenuService(client, stockURL, 50*time.Millisecond).handler())
		answered := menu.Wait(300 * time.Millisecond) // 504 at 50ms; only a menu that waits for the stock waits 300ms
		close(release)                                // the stock works 100ms now, unless its caller has left
		if !answered || menu.Rec.Code != http.StatusGatewayTimeout {
			t.Fatalf("stock held: got %v; want 504 after 50ms", menu)
		}
		if call := fake.Await(t, 1, 5*time.Second)[0]; call.Outcome != fakestock.Completed {
			t.Errorf("got the stock %v, want completed (the race leaves it running)", call)
		}
	})
	t.Run("serves the menu", func(t *testing.T) {
		stockURL, client := fakestock.Loopback(t, fakestock.New())
		menutest.CheckAnswer(t, menutest.Get(newMenuService(client, stockURL, testTimeout).handler()), http.StatusOK)
	})
	t.Run("connection refused", func(t *testing.T) {
		client := &http.Client{Transport: &http.Transport{}}
		menutest.CheckAnswer(t, menutest.Get(newMenuService(client, menutest.ClosedPortURL(t), testTimeout).handler()), http.StatusBadGateway)
	})
}
