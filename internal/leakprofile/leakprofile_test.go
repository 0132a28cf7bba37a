//go:build goexperiment.goroutineleakprofile

package leakprofile

import (
	"context"
	"runtime"
	"runtime/pprof"
	"strings"
	"testing"
)

type order struct{ scoops, centsPerScoop int }

// leakyTotals is step 06's task 2 with the bare send that the README warns
// of: once nobody reads totals, it blocks for ever.
func leakyTotals(ctx context.Context, orders <-chan order, totals chan<- int) error {
	defer close(totals)
	for {
		select {
		case o, ok := <-orders:
			if !ok {
				return nil
			}
			totals <- o.scoops * o.centsPerScoop // the leak: no select with ctx.Done()
		case <-ctx.Done():
			return context.Cause(ctx)
		}
	}
}

// startPipeline runs leakyTotals on two orders, takes the first total and
// cancels, as a ledger that has what it needs does. Once it returns, only
// the blocked goroutine refers to the two channels.
//
//go:noinline
func startPipeline() {
	ctx, cancel := context.WithCancel(context.Background())
	orders, totals := make(chan order, 2), make(chan int)
	orders <- order{2, 350}
	orders <- order{1, 400}
	go leakyTotals(ctx, orders, totals) // it never returns
	<-totals
	cancel()
}

func TestGoroutineLeakProfile(t *testing.T) {
	p := pprof.Lookup("goroutineleak")
	if p == nil {
		t.Fatal(`pprof.Lookup("goroutineleak") = nil, want the profile (build with GOEXPERIMENT=goroutineleakprofile)`)
	}
	startPipeline()
	runtime.Gosched()
	var b strings.Builder
	if err := p.WriteTo(&b, 1); err != nil {
		t.Fatalf("writing the goroutine leak profile: %v", err)
	}
	if !strings.Contains(b.String(), "leakprofile.leakyTotals+") {
		t.Fatalf("the goroutine leak profile does not report leakyTotals blocked on its bare send:\n%s", b.String())
	}
	t.Logf("found:\n%s", b.String())
}
