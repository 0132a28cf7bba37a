package platform

import (
	"cmp"
	"fmt"
	"net/http"
	"net/http/httptrace"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/icecreamcorp/go-cancellation-workshop/internal/fakestock"
	"github.com/icecreamcorp/go-cancellation-workshop/internal/leakcheck"
	"github.com/icecreamcorp/go-cancellation-workshop/internal/memnet"
)

func TestShared(t *testing.T) {
	leakcheck.Check(t)
	const pistachio = `{"stock":[{"name":"Pistachio","stock":6}]}`
	type caller struct{ at, leave time.Duration } // asks at; its ctx ends (errLeft) this long after: <0 before, 0 never
	tests := []struct {
		name    string
		replies []fakestock.Reply
		callers []caller // caller i's ctx carries an httptrace that notes i
		want    []string // each caller's verdict
		saw     string   // what the stock service saw
		traced  string   // whose traces the requests carried
		fix     string
	}{
		{
			name: "callers share", replies: []fakestock.Reply{{Delay: 3 * time.Second, Body: pistachio}},
			callers: []caller{{at: 0, leave: time.Second}, {at: 0, leave: 0}, {at: 0, leave: 0}, {at: time.Second, leave: 0}},
			want:    []string{"the caller left at 1s", "map[Pistachio:6] ok at 3s", "map[Pistachio:6] ok at 3s", "map[Pistachio:6] ok at 3s"},
			saw:     "0s completed after 3s", traced: "caller 0",
			fix: "share one DoChan call that no caller can cancel, bounded by s.timeout; hand each a copy",
		},
		{
			name: "upstream hangs", replies: []fakestock.Reply{{Delay: time.Hour}},
			callers: []caller{{at: 0, leave: -1}, {at: 0, leave: 0}, {at: 0, leave: 0}},
			want:    []string{"the caller left at 0s", "context deadline exceeded at 4s", "context deadline exceeded at 4s"},
			saw:     "0s abandoned after 4s", traced: "caller 1",
			fix: "look at ctx.Err() first, return context.Cause(ctx); bound the shared call with context.WithTimeout(…, s.timeout)",
		},
		{
			name: "asks again",
			replies: []fakestock.Reply{
				{Delay: time.Second, Status: http.StatusServiceUnavailable, Body: `{"error":"busy"}`},
				{Delay: time.Second, Body: pistachio},
			},
			callers: []caller{{at: 0, leave: 0}, {at: time.Second, leave: 0}},
			want:    []string{"error at 1s", "map[Pistachio:6] ok at 2s"},
			saw:     "0s completed after 1s, 1s completed after 1s", traced: "caller 0 caller 1",
			fix: "return the shared call's error",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				fake, start := fakestock.New(tt.replies...), time.Now()
				shared := NewSharedStock(memnet.Serve(t, fake).Client(), "http://stock.test/stock", 4*time.Second)
				mu, traced := new(sync.Mutex), ""
				var calls []*bgCall[Levels]
				for i, c := range tt.callers {
					time.Sleep(c.at - time.Since(start))
					synctest.Wait() // what is due now has happened
					ctx := httptrace.WithClientTrace(leaving(t, c.leave), &httptrace.ClientTrace{
						GetConn: func(string) { mu.Lock(); traced = strings.TrimSpace(fmt.Sprint(traced, " caller ", i)); mu.Unlock() },
					})
					calls = append(calls, goCall(func() (Levels, error) { return shared.Levels(ctx) }))
				}
				var got []string
				for i, c := range calls {
					c.await(time.Minute)
					if got = append(got, verdict(c, tt.callers[i].at)); c.returned() {
						for name := range c.got {
							c.got[name] = -1 // a caller changes its own levels: nobody else's may change
						}
					}
				}
				synctest.Wait()
				mu.Lock()
				defer mu.Unlock()
				var wrong []string
				for i := range got {
					if got[i] != tt.want[i] {
						wrong = append(wrong, fmt.Sprintf("caller %d, asking at %v: got %s, want %s", i, tt.callers[i].at, got[i], tt.want[i]))
					}
				}
				if saw := history(fake, start); saw != tt.saw {
					wrong = append(wrong, fmt.Sprintf("the stock service saw: got %s, want %s", saw, tt.saw))
				}
				if traced != tt.traced {
					wrong = append(wrong, fmt.Sprintf("the requests carried the trace of: got %s, want %s", cmp.Or(traced, "nobody"), tt.traced))
				}
				if len(wrong) > 0 {
					t.Errorf("%s\n\tfix: %s", strings.Join(wrong, "\n\t"), strings.Join(append(symptoms(got, history(fake, start), tt.saw, traced), tt.fix), "\n\tfix: "))
				}
			})
		})
	}
}

// symptoms names the fix for what the callers' verdicts, what the stock
// service saw and the traces show, before the case's own.
func symptoms(got []string, saw, wantSaw, traced string) []string {
	verdicts := strings.Join(got, "; ")
	var fixes []string
	if strings.Contains(verdicts, "had not returned") {
		fixes = append(fixes, "select on ctx.Done() beside DoChan's channel: each caller leaves at its own cancel")
	}
	if strings.Contains(verdicts, ":-1]") {
		fixes = append(fixes, "hand each caller a copy of the levels (maps.Clone)")
	}
	if strings.Count(saw, " after ") > strings.Count(wantSaw, " after ") {
		fixes = append(fixes, "one upstream request for all: no Forget when a caller leaves, no caller's cancel on the shared call")
	}
	if traced == "" && strings.Contains(saw, " after ") {
		fixes = append(fixes, "keep the caller's values: context.WithoutCancel(ctx), not context.Background()")
	}
	return fixes
}
