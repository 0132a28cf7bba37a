package main

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/icecreamcorp/go-cancellation-workshop/internal/fakestock"
	"github.com/icecreamcorp/go-cancellation-workshop/internal/leakcheck"
	"github.com/icecreamcorp/go-cancellation-workshop/internal/menutest"
)

// testTimeout is the menu's timeout in tests, as in production: 1s.
const testTimeout = time.Second

// newTestMenu is the menu under test, asking stock for its stock list.
func newTestMenu(stock *menutest.Stock) http.Handler {
	return newMenuService(stock.Client(), menutest.StockURL, testTimeout).handler()
}

// TestVersion1: when the stock service answers in time, version 2 behaves
// as version 1 did (step 02's checks).
func TestVersion1(t *testing.T) {
	t.Run("menu", func(t *testing.T) { menutest.ServesTheMenu(t, newTestMenu) })
	t.Run("failures", func(t *testing.T) { menutest.AnswersBadGateway(t, newTestMenu, maxStockBody) })
	t.Run("body", func(t *testing.T) { menutest.ClosesTheBody(t, newTestMenu, maxStockBody) })
	t.Run("stock client", func(t *testing.T) {
		leakcheck.Check(t)
		menutest.GuardsTheStockClient(t, newStockClient(), func(client *http.Client, stockURL string) http.Handler {
			return newMenuService(client, stockURL, testTimeout).handler()
		})
	})
}

func TestTimeout(t *testing.T) {
	for _, tc := range []struct {
		name    string
		timeout time.Duration
		reply   fakestock.Reply
		at      time.Duration // when the menu answers
		want    int
		fix     string
	}{
		{name: "stock takes 10s", timeout: time.Second, reply: fakestock.Reply{Delay: 10 * time.Second}, at: time.Second, want: 504, fix: "race the call against a timer; 504, not 500"},
		{name: "timeout 250ms", timeout: 250 * time.Millisecond, reply: fakestock.Reply{Delay: 10 * time.Second}, at: 250 * time.Millisecond, want: 504, fix: "a timer of s.timeout"},
		{name: "stock just in time", timeout: time.Second, reply: fakestock.Reply{Delay: time.Second - 1}, at: time.Second - 1, want: 200, fix: "select on the result as well"},
		{name: "stock fails first", timeout: time.Second, reply: fakestock.Reply{Delay: 300 * time.Millisecond, Drop: true}, at: 300 * time.Millisecond, want: 502, fix: "a failure wins the race too"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			letBlockedSendGo(t, func(t *testing.T) {
				stock := menutest.NewStock(t, tc.reply)
				menu := menutest.Start(newMenuService(stock.Client(), menutest.StockURL, tc.timeout).handler())
				time.Sleep(tc.at - 1)
				synctest.Wait()
				early := menu.Answered()
				time.Sleep(time.Nanosecond)
				synctest.Wait()
				if early || !menu.Answered() || menu.Rec.Code != tc.want {
					t.Fatalf("got %v; want %d after %v (%s)", menu, tc.want, tc.at, tc.fix)
				}
				menutest.CheckAnswer(t, menu.Rec, tc.want)
			})
		})
	}
}

// letBlockedSendGo runs f in a synctest bubble, and lets a goroutine left
// blocked on its send go: that leak is task 2's (TestGoroutineEnds).
func letBlockedSendGo(t *testing.T, f func(*testing.T)) {
	defer func() {
		if p := recover(); p != nil && !strings.Contains(fmt.Sprint(p), "blocked goroutines remain") {
			panic(p)
		}
	}()
	synctest.Test(t, f)
}
