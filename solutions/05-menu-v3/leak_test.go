package main

// A guard apart from the spec: a menu that leaves a goroutine blocked for
// good (version 2's goroutine sending on an unbuffered channel nobody reads)
// would crash the test binary inside a synctest bubble, and every test with it.

import (
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/icecreamcorp/go-cancellation-workshop/internal/fakestock"
	"github.com/icecreamcorp/go-cancellation-workshop/internal/leakcheck"
	"github.com/icecreamcorp/go-cancellation-workshop/internal/menutest"
)

// guard starts a test: it stops at once if the menu leaves a goroutine
// blocked, and fails if the test leaves one running.
func guard(t *testing.T) {
	t.Helper()
	leakOnce.Do(func() { leakErr = leaked(t) })
	must(t, leakErr == nil, "not run: the menu leaves a goroutine blocked after it answers, which would crash this test (no goroutine, no channel):\n%v", leakErr)
	leakcheck.Check(t)
}

var leakOnce sync.Once
var leakErr error // what leaked found

// leaked returns the goroutines left running (goleak waits a moment) once a
// menu with a 10ms timeout has answered, in real time, and its stock service too.
func leaked(t *testing.T) error {
	before := goleak.IgnoreCurrent()
	release := make(chan struct{})
	fake := fakestock.New(fakestock.Reply{})
	stock := menutest.ServeStock(t, fake, menutest.HoldUntil(release, fake))
	menu := menutest.Start(newMenuService(stock.Client(), menutest.StockURL, 10*time.Millisecond).handler())
	menu.Wait(300 * time.Millisecond)
	close(release)
	must(t, menu.Wait(10*time.Second), "got %v 10s after the stock service answered, want 504 after 10ms", menu)
	must(t, stock.Close() == nil, "closing the fake stock service")
	return goleak.Find(before)
}
