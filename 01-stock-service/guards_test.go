package main

import (
	"cmp"
	"slices"
	"sync"
	"testing"
	"time"
)

// TestDelayConcurrentDraws guards one wrong answer of task 2: a *rand.Rand
// shared by every request without a lock. go test -race reports it; plain
// go test sees goroutines that read the generator's state at once draw the
// same delay, otherwise a one-in-a-billion event over [0, 2⁶²). A generator
// of whole milliseconds (also right) repeats by chance over millions of
// draws: for it, only repeats from batches that ran at the same time count.
// It keeps one delay in 64 (by value), to look at millions in little memory.
func TestDelayConcurrentDraws(t *testing.T) {
	const maxDelay, goroutines, rounds = time.Duration(1 << 62), 4, 6
	seen, step := map[time.Duration]bool{}, uint64(0) // step: the generator's, 1ns for rand.N
	for range 1000 {
		d := uniformDelay(maxDelay)()
		if seen[d] {
			t.Fatalf("uniformDelay(2⁶²ns) drew %d twice in 1000 draws, want random delays (math/rand/v2 N)", d)
		}
		seen[d] = true
		for a, b := step, uint64(d); b != 0; a, b = b, a%b { // step = gcd(step, d)
			step = b
		}
	}
	step = max(step, 1)
	if uint64(maxDelay)/step < 1<<40 {
		t.Skipf("uniformDelay(2⁶²ns) draws multiples of %v: too few delays to tell a race from chance; go test -race checks it", time.Duration(step))
	}
	byChance := uint64(maxDelay)/step < 1<<56 // a repeat far apart in time may be chance
	type kept struct {
		d        time.Duration
		from, to time.Time // when the batch it came from ran
	}
	for range rounds { // a race shows only when the goroutines run at once, on cores of their own
		draw, keep := uniformDelay(maxDelay), make([][]kept, goroutines)
		var wg sync.WaitGroup
		until := time.Now().Add(40 * time.Millisecond)
		for i := range keep {
			wg.Go(func() {
				for from := time.Now(); from.Before(until); {
					var batch []time.Duration
					for range 1024 {
						if d := draw(); (uint64(d)/step)%64 == 0 {
							batch = append(batch, d)
						}
					}
					to := time.Now()
					for _, d := range batch {
						keep[i] = append(keep[i], kept{d, from, to})
					}
					from = to
				}
			})
		}
		wg.Wait()
		all := slices.Concat(keep...)
		slices.SortFunc(all, func(x, y kept) int { return cmp.Compare(x.d, y.d) })
		for k := 1; k < len(all); k++ {
			x, y := all[k-1], all[k]
			together := !x.from.After(y.to) && !y.from.After(x.to)
			if x.d == y.d && (together || !byChance) {
				t.Fatalf("uniformDelay(2⁶²ns) drew %d twice from %d goroutines at once, want no repeat (a shared *rand.Rand races: call rand.N)", x.d, goroutines)
			}
		}
	}
}
