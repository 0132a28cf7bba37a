package platform

import (
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
		callers []caller // caller i's ctx carries an httptrace that notes "traced by i"
		want    string   // each caller's verdict; what the stock service saw; whose trace the requests carried
		fix     string
	}{
		{"callers share", []fakestock.Reply{{Delay: 3 * time.Second, Body: pistachio}}, []caller{{0, time.Second}, {0, 0}, {0, 0}, {time.Second, 0}},
			"the caller left at 1s; map[Pistachio:6] ok at 3s; map[Pistachio:6] ok at 3s; map[Pistachio:6] ok at 3s; saw 0s completed after 3s; traced by 0",
			"share one DoChan call that no caller can cancel, bounded by s.timeout; hand each a copy"},
		{"upstream hangs", []fakestock.Reply{{Delay: time.Hour}}, []caller{{0, -1}, {0, 0}, {0, 0}},
			"the caller left at 0s; context deadline exceeded at 4s; context deadline exceeded at 4s; saw 0s abandoned after 4s; traced by 1",
			"look at ctx.Err() first, return context.Cause(ctx); bound the shared call with context.WithTimeout(…, s.timeout)"},
		{"asks again", []fakestock.Reply{{Delay: time.Second, Status: http.StatusServiceUnavailable, Body: `{"error":"busy"}`}, {Delay: time.Second, Body: pistachio}},
			[]caller{{0, 0}, {time.Second, 0}}, "error at 1s; map[Pistachio:6] ok at 2s; saw 0s completed after 1s, 1s completed after 1s; traced by 0 1",
			"return the shared call's error"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				fake, start := fakestock.New(tt.replies...), time.Now()
				shared := NewSharedStock(memnet.Serve(t, fake).Client(), "http://stock.test/stock", 4*time.Second)
				mu, traced := new(sync.Mutex), "traced by"
				var calls []*bgCall[Levels]
				for i, c := range tt.callers {
					time.Sleep(c.at - time.Since(start))
					synctest.Wait() // what is due now has happened
					ctx := httptrace.WithClientTrace(leaving(t, c.leave), &httptrace.ClientTrace{
						GetConn: func(string) { mu.Lock(); traced += fmt.Sprint(" ", i); mu.Unlock() },
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
				if got := fmt.Sprintf("%s; saw %s; %s", strings.Join(got, "; "), history(fake, start), traced); got != tt.want {
					t.Errorf("%s\n\tfix: %s", differ(got, tt.want)[2:], strings.Join(append(symptoms(got, tt.want), tt.fix), "; "))
				}
			})
		})
	}
}

// symptoms names the fix for what a wrong verdict shows, before the case's own.
func symptoms(got, want string) []string {
	saw := func(v string) int { _, after, _ := strings.Cut(v, "; saw "); return strings.Count(after, " after ") }
	var fixes []string
	if strings.Contains(got, "had not returned") {
		fixes = append(fixes, "select on ctx.Done() beside DoChan's channel: each caller leaves at its own cancel")
	}
	if strings.Contains(got, ":-1]") {
		fixes = append(fixes, "hand each caller a copy of the levels (maps.Clone)")
	}
	if saw(got) > saw(want) {
		fixes = append(fixes, "one upstream request for all: no Forget when a caller leaves, no caller's cancel on the shared call")
	}
	if strings.HasSuffix(got, "traced by") && saw(got) > 0 {
		fixes = append(fixes, "keep the caller's values: context.WithoutCancel(ctx), not context.Background()")
	}
	return fixes
}
