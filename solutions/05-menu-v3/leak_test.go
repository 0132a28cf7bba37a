package main

import (
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/icecreamcorp/go-cancellation-workshop/internal/fakestock"
	"github.com/icecreamcorp/go-cancellation-workshop/internal/leakcheck"
	"github.com/icecreamcorp/go-cancellation-workshop/internal/menutest"
)

// Task 1: no goroutine outlives the request. In version 2 the goroutine that
// called the stock service ran on until the stock service answered; in
// version 3 there is no such goroutine, and the call ends with the request.
//
// This test runs in real time, outside any synctest bubble, and holds the
// stock service's answer until the test ends.
func TestNoGoroutineOutlivesTheRequest(t *testing.T) {
	leakcheck.Check(t)
	requireCancelsAtTimeout(t) // milliseconds; a menu that would fail below fails here, at once
	before := goleak.IgnoreCurrent()
	release, left := make(chan struct{}), make(chan time.Time, 1)
	t.Cleanup(func() { close(release) }) // after the checks below: the cleanups run last-in, first-out
	fake := fakestock.New(fakestock.Reply{})
	stock := menutest.ServeStock(t, fake, holdUntilLeft(release, left, fake))
	menu := menutest.Start(newMenuService(stock.Client(), menutest.StockURL, 10*time.Millisecond).handler())

	require.True(t, menu.Wait(5*time.Second), "%v; the stock service holds its answer; want 504 after 10ms (task 1)", menu)
	require.Equal(t, http.StatusGatewayTimeout, menu.Rec.Code, "%v; want 504 (task 1)", menu)
	select {
	case <-left:
	case <-time.After(300 * time.Millisecond): // a cancelled call has left by the time the 504 is written
		require.Fail(t, "the stock call outlived the request",
			"%v, and 300ms later the stock service was still working on its request: the menu left the call running, as version 2 did (task 1: give the request a context with http.NewRequestWithContext, and drop the goroutine and the channel)", menu)
	}
	stock.Await(t, 1, 5*time.Second)
	require.NoError(t, stock.Close(), "closing the fake stock service")
	assert.NoError(t, goleak.Find(before),
		"%v and its stock call was cancelled, but goroutines it started are still running (task 1: no goroutine, no channel — call fetchStock on the handler's goroutine)", menu)
}

// lateAnswer serves one GET /menu, with a 10ms timeout, while the stock
// service holds the request; once the menu has answered (or after 300ms), it
// lets the stock service answer, and waits until it has. It returns, if
// goroutines started meanwhile are still running, an error that lists them.
func lateAnswer(t testing.TB) error {
	t.Helper()
	before := goleak.IgnoreCurrent()

	release := make(chan struct{})
	releaseOnce := sync.OnceFunc(func() { close(release) })
	t.Cleanup(releaseOnce)
	fake := fakestock.New(fakestock.Reply{})
	stock := menutest.ServeStock(t, fake, menutest.HoldUntil(release, fake))
	menu := menutest.Start(newMenuService(stock.Client(), menutest.StockURL, 10*time.Millisecond).handler())

	// A menu that waits for the stock service waits here 300ms; a menu with
	// a 10ms timeout has answered long before.
	menu.Wait(300 * time.Millisecond)
	releaseOnce()
	if !menu.Wait(10 * time.Second) {
		require.Fail(t, "menu had not answered 10s after the stock service was released")
	}
	stock.Await(t, 1, 10*time.Second)
	// The fake's server and the menu's kept-alive connection to it are not
	// the menu's goroutines: close them before counting.
	require.NoError(t, stock.Close(), "closing the fake stock service")
	return goleak.Find(before)
}

// leaks remembers whether the menu leaves a goroutine blocked for good.
var leaks struct {
	sync.Mutex
	checked bool
	err     error // goroutines still running after lateAnswer, or nil
}

// lateLeak runs lateAnswer once per test binary, and returns what it found.
func lateLeak(t *testing.T) error {
	t.Helper()
	leaks.Lock()
	defer leaks.Unlock()
	if !leaks.checked {
		leaks.checked, leaks.err = true, lateAnswer(t)
	}
	return leaks.err
}

// requireNoLeak stops t at once if the menu leaves a goroutine blocked even
// after the stock service has answered — version 2's goroutine sending on an
// unbuffered channel, say. Inside a synctest bubble such a goroutine would
// crash the test binary, and every other test with it. Call it first in a
// test, outside any synctest bubble.
func requireNoLeak(t *testing.T) {
	t.Helper()
	if err := lateLeak(t); err != nil {
		require.Fail(t, "not running this test: the menu leaves a goroutine blocked forever after it answers, and inside a synctest bubble that would crash the test binary (task 1: no goroutine and no channel in version 3 — and never an unbuffered channel nobody reads):\n"+err.Error())
	}
}
