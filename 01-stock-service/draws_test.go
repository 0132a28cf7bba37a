package main

import (
	"cmp"
	"slices"
	"sync"
	"testing"
	"time"
)

// TestDelayDraws checks uniformDelay over [0, 2⁶²ns), where rand.N repeats a
// draw once in a billion runs, and guards one wrong answer: a *rand.Rand
// shared by all requests without a lock. go test -race reports it; plain go
// test sees goroutines that read its state at once draw the same delay.
func TestDelayDraws(t *testing.T) {
	const maxDelay = time.Duration(1 << 62)
	draw, lo, hi, seen, step := uniformDelay(maxDelay), maxDelay, time.Duration(-1), map[time.Duration]bool{}, uint64(0)
	for range 1000 {
		d := draw()
		if d < 0 || d >= maxDelay {
			t.Fatalf("uniformDelay(2⁶²ns)() = %d, want a delay in [0, 2⁶²) (math/rand/v2 N)", d)
		} else if seen[d] {
			t.Fatalf("uniformDelay(2⁶²ns) drew %d twice in 1000 draws, want a new random delay each call (math/rand/v2 N)", d)
		}
		seen[d], lo, hi = true, min(lo, d), max(hi, d)
		for a, b := step, uint64(d); b != 0; a, b = b, a%b { // step = gcd(step, d): the generator's, 1ns for rand.N
			step = b
		}
	}
	if lo >= maxDelay/10 || hi < maxDelay/10*9 {
		t.Fatalf("1000 draws of uniformDelay(2⁶²ns): got [%d, %d], want spread over [0, 2⁶²) (rand.N(maxDelay))", lo, hi)
	}
	if a, b := uniformDelay(maxDelay)(), uniformDelay(maxDelay)(); a == b {
		t.Fatalf("two uniformDelay(2⁶²ns) both drew %d first, want random draws (math/rand/v2 N, not a fixed seed)", a)
	}
	defer func() {
		if p := recover(); p != nil {
			t.Errorf("uniformDelay(0 or 1ms)() panicked (%v), want a delay (rand.N panics on 0)", p)
		}
	}()
	for _, limit := range []time.Duration{0, time.Millisecond} { // whole ms is right; [0, max] is not
		for range 100 {
			if d := uniformDelay(limit)(); d < 0 || d >= max(limit, 1) {
				t.Fatalf("uniformDelay(%v)() = %v, want a delay in [0, %[1]v), 0 for 0 (rand.N(maxDelay))", limit, d)
			}
		}
	}

	if uint64(maxDelay)/step < 1<<40 {
		t.Skipf("uniformDelay(2⁶²ns) draws multiples of %v: too few delays to tell a race from chance; go test -race checks it", time.Duration(step))
	}
	// Whole milliseconds (also right) repeat by chance over millions of draws:
	// then only repeats from batches drawn at the same time count. One delay
	// in 64 (by value) is kept, to look at millions.
	byChance := uint64(maxDelay)/step < 1<<56
	type kept struct {
		d        time.Duration
		from, to time.Time // when its batch was drawn
	}
	for range 6 { // a race shows only when the goroutines run at once, on cores of their own
		draw, keep := uniformDelay(maxDelay), make([][]kept, 4)
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
			if together := !x.from.After(y.to) && !y.from.After(x.to); x.d == y.d && (together || !byChance) {
				t.Fatalf("uniformDelay(2⁶²ns) drew %d twice from 4 goroutines at once, want no repeat (a shared *rand.Rand races: call rand.N)", x.d)
			}
		}
	}
}
