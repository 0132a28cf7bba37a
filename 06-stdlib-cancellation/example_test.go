package platform

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"time"
)

// Poll polls at once; when its context ends, here during the first poll, it
// returns the cause without waiting for the next tick or polling again.
func ExamplePoll() {
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	polls := 0
	err := Poll(ctx, 50*time.Millisecond, func(ctx context.Context) {
		if polls++; polls > 2 {
			panic("Poll polls on after its context ended")
		}
		fmt.Println("poll", polls)
		cancel(errors.New("the dashboard closed"))
	})
	fmt.Println(err)

	// With a context that has already ended, or no schedule to keep: no poll at all.
	fmt.Println(Poll(ctx, 50*time.Millisecond, func(context.Context) { fmt.Println("poll") }))
	fmt.Println(Poll(context.Background(), 0, func(context.Context) { fmt.Println("poll") }))
	// Output:
	// poll 1
	// the dashboard closed
	// the dashboard closed
	// poll every 0s: want an interval of more than 0
}

// The ledger takes one total, then stops reading and cancels: Totals returns
// the cause, though nobody will take its next total.
func ExampleTotals() {
	orders := make(chan Order, 2)
	orders <- Order{ID: "A1", Scoops: 2, CentsPerScoop: 250}
	orders <- Order{ID: "A2", Scoops: 1, CentsPerScoop: 300}
	totals := make(chan Total)
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	errc := make(chan error, 1)
	go func() { errc <- Totals(ctx, orders, totals) }()

	fmt.Println(<-totals)
	cancel(errors.New("the ledger has what it needs"))
	select {
	case err := <-errc:
		fmt.Println(err)
	case <-time.After(time.Second):
		fmt.Println("Totals is still waiting to send A2's total")
		return
	}
	select {
	case _, open := <-totals:
		fmt.Println("totals open:", open)
	case <-time.After(time.Second):
		fmt.Println("totals still open 1s after Totals returned")
	}
	// Output:
	// {A1 500}
	// the ledger has what it needs
	// totals open: false
}

// A Next whose context ends returns the cause, and the feed reads on.
func ExampleFeed_Next() {
	client, server := net.Pipe()
	defer server.Close()
	feed := newFeed(client)
	defer feed.Close()
	guard := time.AfterFunc(time.Second, func() { feed.Close() }) // frees a Next deaf to ctx
	defer guard.Stop()

	go io.WriteString(server, "pistachio 6437\n")
	fmt.Println(feed.Next(context.Background()))

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	fmt.Println(feed.Next(ctx)) // the feed is quiet

	go io.WriteString(server, "neopolitan 0\n")
	fmt.Println(feed.Next(context.Background()))
	// Output:
	// pistachio 6437 <nil>
	//  context deadline exceeded
	// neopolitan 0 <nil>
}

// Copy copies to the end; with a context that has ended, it copies nothing
// and says why.
func ExampleCopy() {
	var dst bytes.Buffer
	fmt.Println(Copy(context.Background(), &dst, strings.NewReader("pistachio,6437\n")))

	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(errors.New("import superseded by a newer file"))
	fmt.Println(Copy(ctx, &dst, strings.NewReader("neopolitan,0\n")))
	fmt.Print(dst.String())
	// Output:
	// 15 <nil>
	// 0 import superseded by a newer file
	// pistachio,6437
}

// The year-end report holds the pool's only renderer; a daily report whose
// caller gives up after 10ms waits no longer than that, and is not rendered.
func ExamplePool_Render() {
	left := errors.New("the caller left")
	var pool *Pool
	pool = NewPool(1, func(ctx context.Context, job Job) error {
		fmt.Println("rendering", job.Name)
		if job.Name == "year-end" {
			ctx, cancel := context.WithTimeoutCause(ctx, 10*time.Millisecond, left)
			defer cancel()
			daily := make(chan error, 1)
			go func() { daily <- pool.Render(ctx, Job{Name: "daily", Weight: 1}) }()
			select {
			case err := <-daily:
				fmt.Println("daily: caller left:", errors.Is(err, left))
			case <-time.After(time.Second):
				fmt.Println("daily: still in line 1s after its caller left")
			}
		}
		return nil
	})
	fmt.Println(pool.Render(context.Background(), Job{Name: "year-end", Weight: 1}))
	// Output:
	// rendering year-end
	// daily: caller left: true
	// <nil>
}
