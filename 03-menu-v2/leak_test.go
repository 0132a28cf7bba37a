package main

import (
	"embed"
	"net/http"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/icecreamcorp/go-cancellation-workshop/internal/fakestock"
	"github.com/icecreamcorp/go-cancellation-workshop/internal/menutest"
)

// TestGoroutineEnds runs in real time: in a synctest bubble a goroutine
// blocked forever would crash the test binary.
func TestGoroutineEnds(t *testing.T) {
	for _, late := range []fakestock.Reply{{Delay: 50 * time.Millisecond}, {Delay: 50 * time.Millisecond, Drop: true}} { // it succeeds, or fails, 50ms after the 504
		before := goleak.IgnoreCurrent()
		release := make(chan struct{})
		fake := fakestock.New(late)
		stock := menutest.ServeStock(t, fake, menutest.HoldUntil(release, fake))
		menu := menutest.Start(newMenuService(stock.Client(), menutest.StockURL, 10*time.Millisecond).handler())
		answered := menu.Wait(500 * time.Millisecond)
		close(release)
		if !answered || menu.Rec.Code != http.StatusGatewayTimeout {
			t.Fatalf("stock held: got %v; want 504 after 10ms (answer when the timer wins)", menu)
		}
		fake.Await(t, 1, 5*time.Second)
		stock.Close()
		if err := goleak.Find(before); err != nil {
			stacks := strings.SplitN(err.Error(), "\n", 12)
			t.Fatalf("stock answered %s after the 504: got its goroutine still running, want it ended (give the channel room for one result)\n%s",
				fake.Calls()[0].Outcome, strings.Join(stacks[:min(len(stacks), 11)], "\n"))
		}
	}
}

// source is this package as go test builds it.
//
//go:embed *.go
var source embed.FS

// TestResultIsNotDropped reads the source: a send in a select with a default
// case, on a channel with no room, drops the result whenever the fetch ends
// before fetchStockWithin waits for it, and no run can make that happen on demand.
func TestResultIsNotDropped(t *testing.T) {
	dropped, err := menutest.DroppedSends(source)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range dropped {
		t.Error(d)
	}
}
