package abort

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"go.uber.org/goleak"
)

func TestDo(t *testing.T) {
	errEmpty := errors.New("tub empty")
	synctest.Test(t, func(t *testing.T) {
		got := returnsAt(t, "Do(live ctx, fn taking 3s)", 3*time.Second, "wait for fn's result", func() string {
			v, err := Do(context.Background(), func() (string, error) { time.Sleep(3 * time.Second); return "pistachio", errEmpty })
			return fmt.Sprintf("(%q, %v)", v, err)
		})
		if want := `("pistachio", tub empty)`; got != want {
			t.Errorf("Do(live ctx, fn taking 3s) = %s; want %s (return fn's value and error)", got, want)
		}
	})
}

// In real time, outside a synctest bubble: a Do that starts fn anyway, with
// an unbuffered channel, would leave its goroutine blocked and crash a bubble.
func TestDoAlreadyEnded(t *testing.T) {
	before := goleak.IgnoreCurrent()
	ctx, _ := newCtx(t, -1, 0, nil)
	var called atomic.Bool
	release := make(chan struct{})
	v, err := Do(ctx, func() (string, error) {
		called.Store(true)
		select {
		case <-release:
		case <-time.After(5 * time.Second): // a Do that calls fn itself, and waits for it
		}
		return "pistachio", nil
	})
	g := leaked(before) // a goroutine Do started for fn is still there, in fn
	close(release)
	if v != "" || !errors.Is(err, context.DeadlineExceeded) || called.Load() || g != "" {
		t.Errorf("Do(ctx past its deadline) = (%q, %v), fn called: %v; want (\"\", %v), false (return ctx.Err() first, and start nothing)",
			v, err, called.Load(), context.DeadlineExceeded)
	}
}

// In real time, outside a synctest bubble: a goroutine left blocked would
// crash a bubble instead of failing this test.
func TestDoLetsItsGoroutineFinish(t *testing.T) {
	before := goleak.IgnoreCurrent()
	ctx, cancel := newCtx(t, time.Hour, 0, errors.New("customer left")) // a reason, which ctx.Err() does not carry
	started, release := make(chan struct{}), make(chan struct{})
	releaseFn := sync.OnceFunc(func() { close(release) })
	defer releaseFn()
	done := make(chan string, 1)
	go func() {
		v, err := Do(ctx, func() (string, error) { close(started); <-release; return "too late", nil })
		done <- fmt.Sprintf("(%q, %v)", v, err)
	}()
	select {
	case <-started:
	case got := <-done:
		t.Fatalf("Do(live ctx, fn) = %s without calling fn; want it to run fn in a goroutine", got)
	case <-time.After(5 * time.Second):
		t.Fatal("Do(live ctx, fn) had not called fn after 5s; want it to run fn in a goroutine")
	}

	cancel()
	select {
	case got := <-done:
		if want := `("", context canceled)`; got != want {
			t.Errorf("Do(ctx cancelled while fn runs) = %s; want %s (return the zero value and ctx.Err())", got, want)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Do still waiting 5s after ctx was cancelled, fn still running; want it to return at once (select on ctx.Done() too)")
	}

	releaseFn() // fn finishes, long after Do has returned
	if g := leaked(before); g != "" {
		t.Errorf("after fn returned: %s; want Do's goroutine finished (give the result channel room for one result)", g)
	}
}

// Promise.race([work, abortEvent]), as in menu v2: the caller stops waiting, the work goes on.
func ExampleDo() {
	ctx, cancel := context.WithCancel(context.Background())
	release := make(chan struct{})
	served := make(chan string, 1)

	flavour, err := Do(ctx, func() (string, error) {
		cancel() // the customer walks out while we scoop...
		select { // ...and scooping cannot be cancelled: it ends when it ends
		case <-release:
		case <-time.After(300 * time.Millisecond): // only if Do called fn and did not return
		}
		served <- "pistachio"
		return "pistachio", nil
	})
	fmt.Printf("Do: %q, %v\n", flavour, err)

	close(release)
	select { // the work was not stopped: it runs to the end, for nobody
	case f := <-served:
		fmt.Println("scooped anyway:", f)
	case <-time.After(300 * time.Millisecond): // fn finishes in microseconds, if Do ran it
		fmt.Println("fn did not finish within 300ms")
	}
	// Output:
	// Do: "", context canceled
	// scooped anyway: pistachio
}
