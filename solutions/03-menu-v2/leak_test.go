package main

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/icecreamcorp/go-cancellation-workshop/internal/fakestock"
	"github.com/icecreamcorp/go-cancellation-workshop/internal/menutest"
)

// Task 2: once the stock service answers, late, the goroutine that called it
// ends. In real time: inside a synctest bubble, a goroutine blocked forever
// would crash the test binary instead.
func TestGoroutineEnds(t *testing.T) {
	before := goleak.IgnoreCurrent()
	release := make(chan struct{})
	fake := fakestock.New()
	stock := menutest.ServeStock(t, fake, menutest.HoldUntil(release, fake))
	menu := menutest.Start(newMenuService(stock.Client(), menutest.StockURL, 10*time.Millisecond).handler())

	answered := menu.Wait(500 * time.Millisecond)
	close(release)
	require.True(t, answered, "%v; the stock service was held; want 504 after 10ms (answer when the timer wins, without waiting for the goroutine)", menu)
	require.Equal(t, http.StatusGatewayTimeout, menu.Rec.Code, "%v; want 504", menu)

	fake.Await(t, 1, 5*time.Second)
	require.NoError(t, stock.Close(), "closing the fake stock service") // its goroutines are not the menu's
	if err := goleak.Find(before); err != nil {
		stacks := strings.SplitN(err.Error(), "\n", 12)
		t.Fatalf("the stock service answered after the menu's 504: got its goroutine still running, want it ended (give the result channel room for one result)\n%s",
			strings.Join(stacks[:min(len(stacks), 11)], "\n"))
	}
}
