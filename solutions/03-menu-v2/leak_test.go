package main

import (
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/icecreamcorp/go-cancellation-workshop/internal/fakestock"
	"github.com/icecreamcorp/go-cancellation-workshop/internal/menutest"
)

// Task 2: the goroutine that calls the stock service must end, even when the
// menu has stopped waiting for its result.
//
// This test runs in real time, outside any synctest bubble: a goroutine that
// blocks forever inside a bubble crashes the whole test binary, and this test
// wants to tell you what happened instead.
func TestGoroutineEnds(t *testing.T) {
	rec, leak := lateAnswer(t)
	leaks.remember(leak)

	require.Equal(t, http.StatusGatewayTimeout, rec.Code,
		"the stock service was held for up to 1s, then released; menu answered %d: %s; want 504 after 10ms, while the stock service was still held (task 1 first: race the call against a timer)", rec.Code, menutest.Body(rec))
	assert.NoError(t, leak,
		"the menu answered 504, then the stock service answered, and the goroutine that called it is still running: it is blocked sending its result on a channel that nobody will ever receive from again (task 2: make the result channel buffered, with room for one result, so that the send never waits)")
}

// lateAnswer serves one GET /menu, with a 10ms timeout, while the stock
// service holds the request; once the menu has answered (or after 1s), it
// lets the stock service answer, and waits until it has. It returns what the
// menu answered and, if goroutines started meanwhile are still running, an
// error that lists them.
func lateAnswer(t testing.TB) (*httptest.ResponseRecorder, error) {
	t.Helper()
	before := goleak.IgnoreCurrent()

	release := make(chan struct{})
	releaseOnce := sync.OnceFunc(func() { close(release) })
	t.Cleanup(releaseOnce)
	fake := fakestock.New(fakestock.Reply{})
	stock := menutest.ServeStock(t, fake, menutest.HoldUntil(release, fake))
	menu := menutest.Start(newMenuService(stock.Client(), menutest.StockURL, 10*time.Millisecond).handler())

	// A menu that waits for the stock service (the starter) waits here 1s.
	menu.Wait(time.Second)
	releaseOnce()
	if !menu.Wait(10 * time.Second) {
		require.Fail(t, "menu had not answered 10s after the stock service was released")
	}
	stock.Await(t, 1, 10*time.Second)
	// The fake's server and the menu's kept-alive connection to it are not
	// the menu's goroutines: close them before counting.
	require.NoError(t, stock.Close(), "closing the fake stock service")
	return menu.Rec, goleak.Find(before)
}

// leakCheck remembers whether the menu leaks its goroutine, so that the tests
// that run the menu inside a synctest bubble can refuse to run if it does.
type leakCheck struct {
	mu      sync.Mutex
	checked bool
	err     error // goroutines still running after lateAnswer, or nil
}

var leaks leakCheck

func (l *leakCheck) remember(err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.checked, l.err = true, err
}

// requireNoLeak stops t at once if the menu leaves its goroutine blocked
// after a timeout, as TestGoroutineEnds (run here if it has not run yet)
// found. Inside a synctest bubble such a goroutine would crash the test
// binary, and every other test with it. Call it first in a test, outside any
// synctest bubble.
func requireNoLeak(t *testing.T) {
	t.Helper()
	leaks.mu.Lock()
	defer leaks.mu.Unlock()
	if !leaks.checked {
		_, err := lateAnswer(t)
		leaks.checked, leaks.err = true, err
	}
	if leaks.err != nil {
		require.Fail(t, "not running this test: the menu leaves a goroutine blocked forever after it answers 504, and inside a synctest bubble that would crash the test binary (task 2: run go test -run 'TestGoroutineEnds' . and read what it reports)")
	}
}
