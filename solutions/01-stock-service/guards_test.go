package main

// Guards: checks that each reject one particular wrong answer (see
// MISTAKES.md in ../solutions/01-stock-service), apart from the spec.

import (
	"cmp"
	"slices"
	"sync"
	"testing"
	"time"
)

// TestDelayConcurrentDraws rejects a *rand.Rand shared by every request
// without a lock (task 2). go test -race reports it; plain go test sees two
// goroutines that read the generator's state at once draw the same delay,
// which over [0, 2⁶²) is otherwise a one-in-a-billion event. A generator of
// whole milliseconds (also right) repeats by chance over millions of draws:
// for it only repeats from batches that ran at the same time count. To look
// at millions of draws in little memory it keeps one delay in 64 (by value).
func TestDelayConcurrentDraws(t *testing.T) {
	const maxDelay = time.Duration(1 << 62)
	const goroutines, window = 4, 40 * time.Millisecond
	once, draw := make(map[time.Duration]bool), uniformDelay(maxDelay)
	step := uint64(0) // the generator's step: 1ns for rand.N, 1ms for whole milliseconds
	for range 1000 {
		d := draw()
		if once[d] {
			t.Fatalf("uniformDelay(2⁶²ns) drew %d twice in 1000 draws, want random delays (math/rand/v2 N)", d)
		}
		once[d] = true
		for a, b := step, uint64(d); b != 0; { // step = gcd(step, d)
			a, b = b, a%b
			step = a
		}
	}
	step = max(step, 1)
	delays := uint64(maxDelay) / step // how many delays it draws from
	if delays < 1<<40 {
		t.Skipf("uniformDelay(2⁶²ns) draws multiples of %v: too few delays to tell a race from chance; go test -race checks it", time.Duration(step))
	}
	byChance := delays < 1<<56 // a repeat far apart in time may be chance
	type batch struct{ from, to time.Time }
	type kept struct {
		d        time.Duration
		g, batch int // which goroutine drew it, in which of its batches
	}
	for range 6 { // a race shows only when the goroutines run at once, on cores of their own
		draw := uniformDelay(maxDelay)
		keep := make([][]kept, goroutines)
		batches := make([][]batch, goroutines)
		var wg sync.WaitGroup
		start := make(chan struct{})
		var until time.Time
		for i := range goroutines {
			wg.Go(func() {
				<-start
				for from := time.Now(); from.Before(until); {
					b := len(batches[i])
					for range 1024 {
						if d := draw(); (uint64(d)/step)%64 == 0 {
							keep[i] = append(keep[i], kept{d, i, b})
						}
					}
					to := time.Now()
					batches[i] = append(batches[i], batch{from, to})
					from = to
				}
			})
		}
		until = time.Now().Add(window)
		close(start)
		wg.Wait()
		all := slices.Concat(keep...)
		slices.SortFunc(all, func(x, y kept) int { return cmp.Compare(x.d, y.d) })
		for k := 1; k < len(all); k++ {
			x, y := all[k-1], all[k]
			bx, by := batches[x.g][x.batch], batches[y.g][y.batch]
			together := !bx.from.After(by.to) && !by.from.After(bx.to) // the two batches ran at the same time
			if x.d == y.d && (together || !byChance) {
				t.Fatalf("uniformDelay(2⁶²ns) drew %d twice from %d goroutines at once, want no repeat (a shared *rand.Rand races: call rand.N)", x.d, goroutines)
			}
		}
	}
}
