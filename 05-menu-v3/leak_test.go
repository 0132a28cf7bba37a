package main

// A guard, apart from the spec: a menu that leaves a goroutine blocked for
// good (version 2's goroutine sending on an unbuffered channel nobody reads)
// would crash the test binary inside a synctest bubble, and every test with
// it. Each test asks first, once per binary, in real time.

import (
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/icecreamcorp/go-cancellation-workshop/internal/fakestock"
	"github.com/icecreamcorp/go-cancellation-workshop/internal/menutest"
)

var leaks struct {
	once sync.Once
	err  error // goroutines the menu left running, or nil
}

// requireNoLeak stops t if one GET /menu with a 10ms timeout, whose stock
// service answers after 300ms, leaves goroutines running once all is over
// (goleak waits a moment for those on their way out).
func requireNoLeak(t *testing.T) {
	t.Helper()
	leaks.once.Do(func() {
		before := goleak.IgnoreCurrent()
		release := make(chan struct{})
		fake := fakestock.New(fakestock.Reply{})
		stock := menutest.ServeStock(t, fake, menutest.HoldUntil(release, fake))
		menu := menutest.Start(newMenuService(stock.Client(), menutest.StockURL, 10*time.Millisecond).handler())
		menu.Wait(300 * time.Millisecond)
		close(release)
		must(t, menu.Wait(10*time.Second), "got %v 10s after the stock service answered, want 504 after 10ms", menu)
		must(t, stock.Close() == nil, "closing the fake stock service")
		leaks.err = goleak.Find(before)
	})
	if leaks.err != nil {
		t.Fatalf("not run: the menu leaves a goroutine blocked after it answers, which would crash this test (task 1: no goroutine, no channel):\n%v", leaks.err)
	}
}
