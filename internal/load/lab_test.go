package load

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/icecreamcorp/go-cancellation-workshop/internal/leakcheck"
)

// tinySetup is the lab at a tenth of the talk's durations — a 100ms timeout,
// stock delays of up to 1s — for 1.5s per version at 20 connections.
func tinySetup(versions ...string) Setup {
	return Setup{Scale: 0.1, Timeout: 100 * time.Millisecond, MaxDelay: time.Second,
		Duration: 1500 * time.Millisecond, Conns: 20, Versions: versions}
}

// The lab for real, on a small scale: the solutions built and run as child
// processes on loopback. Its assertions are the qualitative result only,
// with margins wide enough for a busy machine: v2 wastes most of the stock
// service's work, v3 next to none, and over h2c v3 keeps its connections.
func TestLab(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the services for a few seconds; skipped with -short")
	}
	bins := builtSolutions(t)
	leakcheck.Check(t)
	r, err := measureAll(t.Context(), tinySetup("v2", "v3", "v3-h2c"), bins, newProgress(io.Discard), time.Now())
	require.NoError(t, err, "running the lab at -scale 0.1 on v2, v3 and v3-h2c")
	require.Len(t, r.Results, 3, "results, one per version")
	v2, v3, h2 := r.result("v2"), r.result("v3"), r.result("v3-h2c")

	t.Run("the load reached every menu and most requests got an answer", func(t *testing.T) {
		for _, res := range r.Results {
			assert.Greater(t, res.Requests, 20, "%s: requests in 1.5s over 20 connections", res.Version)
			assert.Less(t, res.Errors, res.Requests/10+1, "%s: requests without a response", res.Version)
			assert.Greater(t, res.NotOK, res.OK, "%s: with a 100ms timeout and delays of up to 1s, most answers are 504s", res.Version)
			assert.NotEmpty(t, res.Samples, "%s: readings of the stock service's gauge", res.Version)
			assert.Positive(t, res.PeakGoroutines, "%s: the probe's goroutine count", res.Version)
		}
	})

	t.Run("v2 keeps the stock service working for callers who left; v3 does not", func(t *testing.T) {
		assert.Greater(t, v2.Waste.Share, 0.5, "v2: share of the stock service's work done after the menu's deadline")
		assert.Zero(t, v2.Stock.Abandoned, "v2: stock requests abandoned; v2 never cancels")
		// Not an absolute figure: at this scale a 100ms timeout is short
		// beside a loaded machine's lag in noticing a hang-up (0.11-0.15
		// seen at load 23-41, against ~0.02 at -scale 0.25 on the same box).
		assert.Less(t, v3.Waste.Share, v2.Waste.Share/3, "v3: share of the stock service's work done after the menu hung up, against v2's %.2f", v2.Waste.Share)
		assert.Greater(t, v3.Stock.Abandoned, v3.Stock.Completed, "v3: stock requests abandoned against completed")
		assert.Greater(t, v2.PeakInFlight, v3.PeakInFlight, "peak stock in flight, v2 against v3 (v3 holds at most one per connection)")
		// One per connection, and a few cancelled calls the stock service
		// has not noticed yet: a busy machine may lag.
		assert.LessOrEqual(t, v3.PeakInFlight, int64(40), "v3's peak stock in flight, at 20 connections")
	})

	t.Run("over HTTP/1.1 a cancel costs a connection; over h2c it does not", func(t *testing.T) {
		assert.GreaterOrEqual(t, v3.Conns, v3.Waste.Cancelled/2, "v3 over HTTP/1.1: connections opened, for %d cancelled calls; each cancel closes one", v3.Waste.Cancelled)
		// However many calls it cancels, an HTTP/2 client needs at most one
		// connection per call in flight at once: 20 here.
		assert.LessOrEqual(t, h2.Conns, 20, "v3 over h2c: connections opened, for %d cancelled calls", h2.Waste.Cancelled)
		assert.Less(t, 5*h2.Conns, v3.Conns, "connections opened, v3 over h2c (%d) against v3 over HTTP/1.1 (%d)", h2.Conns, v3.Conns)
		assert.Greater(t, h2.Stock.Abandoned, h2.Stock.Completed, "v3 over h2c: a RST_STREAM cancels the stock request too")
	})
}

func TestLabStopsOnCancel(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the services; skipped with -short")
	}
	builtSolutions(t)
	leakcheck.Check(t) // every service's goroutine waits for its process to exit
	ctx, cancel := context.WithCancel(t.Context())
	s := tinySetup("v1")
	s.Duration = time.Minute
	progress := &watchWriter{want: "loading", seen: make(chan struct{})}
	go func() {
		// Cancel once the load is on, as Ctrl-C would.
		select {
		case <-progress.seen:
			time.Sleep(300 * time.Millisecond)
		case <-time.After(30 * time.Second): // the service is slow to start: cancel that
		}
		cancel()
	}()
	started := time.Now()
	_, err := measureAll(ctx, s, builtSolutions(t), newProgress(progress), time.Now())
	cancel()
	assert.ErrorIs(t, err, context.Canceled, "lab's error after its context was cancelled during the load; its progress:\n%s", progress)
	assert.Less(t, time.Since(started), 50*time.Second, "lab returned long after the cancel; want it to stop everything promptly")
}

// watchWriter keeps what lab writes, and closes seen once it contains want.
type watchWriter struct {
	want string
	seen chan struct{}

	mu sync.Mutex
	b  strings.Builder
}

func (w *watchWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	had := strings.Contains(w.b.String(), w.want)
	w.b.Write(p)
	if !had && strings.Contains(w.b.String(), w.want) {
		close(w.seen)
	}
	return len(p), nil
}

func (w *watchWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}

// The solutions, built once for every test of this package that needs
// them, into a directory TestMain removes.
var solutions struct {
	once sync.Once
	dir  string
	bins map[string]string
	err  error
}

func builtSolutions(t *testing.T) map[string]string {
	t.Helper()
	solutions.once.Do(func() {
		solutions.dir, solutions.err = os.MkdirTemp("", "workshop-load-test-")
		if solutions.err != nil {
			return
		}
		var root string
		var pkgs []string
		if root, solutions.err = filepath.Abs(filepath.Join("..", "..")); solutions.err != nil {
			return
		}
		if pkgs, solutions.err = servicePkgs(root, tinySetup(versionNames()...)); solutions.err == nil {
			solutions.bins, solutions.err = build(context.Background(), root, solutions.dir, pkgs)
		}
	})
	require.NoError(t, solutions.err, "building the solutions' services")
	return solutions.bins
}

func TestMain(m *testing.M) {
	switch os.Getenv(childEnv) { // the test binary as a child of TestLabStopsOnSignal
	case "lab":
		os.Exit(labChild())
	case "service":
		os.Exit(serviceChild())
	}
	code := m.Run()
	if solutions.dir != "" {
		os.RemoveAll(solutions.dir)
	}
	os.Exit(code)
}
