package main

// The menu's tests play its caller and its stock service (internal/menutest:
// a fake behind a real http.Server over in-memory connections) inside
// testing/synctest bubbles, where the stock service's 10s cost no time.

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/icecreamcorp/go-cancellation-workshop/internal/fakestock"
	"github.com/icecreamcorp/go-cancellation-workshop/internal/menutest"
)

// testTimeout is the menu's timeout in tests, as in production: 1s.
const testTimeout = time.Second

// slow is a stock service's answer that comes too late: after 10s.
var slow = fakestock.Reply{Delay: 10 * time.Second}

// Task 1: the menu answers 504 at its timeout, as version 2 did, and the
// stock call ends then too: in step 03 it completed 9s later.
func TestTimeout(t *testing.T) {
	guard(t)
	const fix = "a context with a timeout, passed to the request: http.NewRequestWithContext; no goroutine, no channel"
	for _, tc := range []call{
		{name: "1s", reply: slow, at: time.Second, want: http.StatusGatewayTimeout, says: menutest.StockURL, fix: fix},
		{name: "250ms", reply: slow, timeout: 250 * time.Millisecond, at: 250 * time.Millisecond, want: http.StatusGatewayTimeout, says: menutest.StockURL, fix: fix},
		{name: "200 just in time", reply: fakestock.Reply{Delay: testTimeout - time.Nanosecond}, at: testTimeout - time.Nanosecond, want: http.StatusOK, fix: "an answer in time is served"},
	} {
		bubble(t, tc.name, func(t *testing.T) { tc.serve(t, nil) })
	}
}

// Task 2: when the menu's caller leaves — it hangs up (net/http then cancels
// r.Context()), or its own deadline passes — the call ends then: 499.
func TestClientLeaves(t *testing.T) {
	guard(t)
	for _, tc := range callerLeaves {
		bubble(t, tc.name, func(t *testing.T) { tc.serve(t, nil) })
	}
}

// callerLeaves are the calls whose caller leaves after 300ms.
var callerLeaves = []call{
	{name: "caller hangs up", reply: slow, leave: 300 * time.Millisecond, at: 300 * time.Millisecond, want: statusClientClosedRequest, fix: "derive the call's context from r.Context(); answer 499 once it has ended"},
	{name: "caller deadline", reply: slow, leave: 300 * time.Millisecond, deadline: true, at: 300 * time.Millisecond, want: statusClientClosedRequest, fix: "derive the call's context from r.Context(); answer 499 once it has ended"},
}

// Task 3: one deadline covers the whole exchange, headers and body: a stock
// service that stalls its body gets a 504 at 1s from the start of the call.
func TestDeadlineCoversBody(t *testing.T) {
	guard(t)
	for _, headers := range []time.Duration{0, 600 * time.Millisecond} {
		tc := call{name: "headers after " + headers.String(), reply: fakestock.Reply{Delay: headers, StallBody: true}, at: testTimeout, want: http.StatusGatewayTimeout,
			says: menutest.StockURL, fix: "same ctx for the body, defer cancel(); a cut-off read is not malformed JSON: wrap its error with the URL"}
		bubble(t, tc.name, func(t *testing.T) { tc.serve(t, nil) })
	}
}

// reasons: a stock call ends by our timeout (504), our caller leaving (499), a failure (502).
var reasons = append([]call{
	{name: "in time", reply: fakestock.Reply{Delay: 300 * time.Millisecond}, at: 300 * time.Millisecond, want: http.StatusOK, fix: "an answer in time is served"},
	{name: "our timeout", reply: slow, at: testTimeout, want: http.StatusGatewayTimeout, says: menutest.StockURL, fix: "wrap context.Cause(ctx) beside the call's own error"},
	{name: "stock hangs up", reply: fakestock.Reply{Delay: 300 * time.Millisecond, Drop: true}, at: 300 * time.Millisecond, want: http.StatusBadGateway, fix: "the stock service failed"},
	{name: "stock answers 504", reply: fakestock.Reply{Delay: 300 * time.Millisecond, Status: http.StatusGatewayTimeout}, at: 300 * time.Millisecond, want: http.StatusBadGateway, fix: "its timeout is not ours: errors.Is(err, errStockTooSlow)"},
	{name: "dial timeout", tr: dialTimeout{}, at: 300 * time.Millisecond, want: http.StatusBadGateway, says: "i/o timeout", fix: "no context of ours ended: ask the context, not errors.Is(err, context.DeadlineExceeded)"},
	{name: "too large late", tr: lateOverflow{}, at: testTimeout, want: http.StatusBadGateway, says: (&http.MaxBytesError{}).Error(), fix: "label only an error that is the context's ending, not every error once ctx.Err() != nil"},
}, callerLeaves...)

// Task 4: only our timeout is called one; a caller who left is logged.
func TestReasons(t *testing.T) {
	guard(t)
	for _, tc := range reasons {
		bubble(t, tc.name, func(t *testing.T) {
			var logs strings.Builder // read once the handler has returned
			tc.serve(t, &logs)
			if tc.want == statusClientClosedRequest {
				check(t, logs.Len() > 0, "got no line in s.log, want one: the 499 may reach nobody")
				check(t, !strings.Contains(logs.String(), errStockTooSlow.Error()), "s.log says %s; want no word of our timeout: label it with context.WithTimeoutCause, read it with context.Cause", logs.String())
			}
		})
	}
}

// Task 5: count every request, and each call aborted, by its reason.
func TestCounters(t *testing.T) {
	guard(t)
	for _, tc := range reasons {
		bubble(t, tc.name, func(t *testing.T) {
			want := map[string]int{"requests": 1, "aborted_by_timeout": 0, "aborted_by_client": 0, "failed_fast": 0}
			switch tc.want {
			case http.StatusGatewayTimeout:
				want["aborted_by_timeout"] = 1
			case statusClientClosedRequest:
				want["aborted_by_client"] = 1
			}
			checkVars(t, tc.serve(t, nil).handler(), want, "one request, "+tc.name+" (count each request in handleMenu, each abort by task 4's reason)")
		})
	}
}

// call is one GET /menu of the tables below: what the stock service and the
// menu's caller do, and how the menu must answer.
type call struct {
	name     string
	reply    fakestock.Reply   // the fake stock service's
	tr       http.RoundTripper // if set, the stock client's transport instead of the fake
	timeout  time.Duration     // the menu's; 0 means testTimeout
	leave    time.Duration     // the caller hangs up then (0: never)…
	deadline bool              // …or, if deadline, its own deadline passes then
	at       time.Duration     // when the menu answers
	want     int
	says     string // in s.log: the call's own error
	fix      string
}

// serve serves tc in a bubble with a menu that logs to log, checks its answer
// (and a call a context ended: abandoned then, body closed); returns the menu service.
func (tc call) serve(t *testing.T, log io.Writer) *menuService {
	t.Helper()
	var logs strings.Builder // read once the handler has returned
	log = io.MultiWriter(&logs, cmp.Or(log, io.Discard))
	var stock *menutest.Stock
	client := &http.Client{Transport: tc.tr}
	if tc.tr == nil {
		stock = menutest.NewStock(t, tc.reply)
		client = stock.Client()
	} else {
		t.Cleanup(menutest.Settle)
	}
	svc := newMenuService(client, menutest.StockURL, cmp.Or(tc.timeout, testTimeout))
	svc.log = slog.New(slog.NewTextHandler(log, nil))
	menu := startCaller(t, svc.handler(), tc.leave, tc.deadline)
	requireAnswer(t, menu, tc.at, tc.fix)
	body := menu.Rec.Body.String()
	must(t, tc.want != statusClientClosedRequest || !strings.Contains(body, errStockTooSlow.Error()), "got %v, want %d: the caller's context ended the call, not our deadline (wrap errStockTooSlow only when our own deadline ended it; answer 499 once r.Context() has ended)", menu, tc.want)
	must(t, menu.Rec.Code == tc.want, "got %v, want %d (%s)", menu, tc.want, tc.fix)
	if tc.want == http.StatusOK {
		must(t, menutest.EqualJSON(body, menutest.MenuJSON), "got %v, want the menu", menu)
	} else {
		menutest.AssertJSONError(t, menu.Rec, "writeError")
	}
	must(t, strings.Contains(logs.String(), tc.says), "no %q in s.log: log the call's own error (%s)", tc.says, tc.fix)
	if tc.want == http.StatusGatewayTimeout {
		check(t, strings.Contains(body, errStockTooSlow.Error()), "got %v, want errStockTooSlow's words: writeError(w, 504, errStockTooSlow)", menu)
		check(t, !strings.Contains(logs.String(), "malformed"), "s.log calls the call our deadline ended malformed; want it said as cut off (check ctx.Err() before \"malformed\")")
	}
	if tc.want == statusClientClosedRequest {
		check(t, !strings.Contains(body, errStockTooSlow.Error()), "got %v, want no %q: our deadline had not passed (wrap errStockTooSlow only when our deadline ended the call)", menu, errStockTooSlow)
	}
	if stock != nil && (tc.want == http.StatusGatewayTimeout || tc.want == statusClientClosedRequest) {
		calls := stock.Calls()
		must(t, len(calls) == 1, "got %v and the stock call still running, want it abandoned (%s)", menu, tc.fix)
		must(t, calls[0].Outcome == fakestock.Abandoned && calls[0].Took() == tc.at, "stock %v, want abandoned at %v (%s)", calls[0], tc.at, tc.fix)
		must(t, stock.OpenBodies() == 0, "response bodies left open, want none (defer resp.Body.Close())")
	}
	return svc
}

// newTestMenu is the menu under test, asking stock for its stock list.
func newTestMenu(stock *menutest.Stock) http.Handler {
	return newMenuService(stock.Client(), menutest.StockURL, testTimeout).handler()
}

func check(t testing.TB, ok bool, format string, args ...any) {
	t.Helper()
	if !ok {
		t.Errorf(format, args...)
	}
}

func must(t testing.TB, ok bool, format string, args ...any) {
	t.Helper()
	if !ok {
		t.Fatalf(format, args...)
	}
}

// bubble runs f as subtest name of t, in a synctest bubble.
func bubble(t *testing.T, name string, f func(t *testing.T)) {
	t.Run(name, func(t *testing.T) { synctest.Test(t, f) })
}

// pass lets d pass in the bubble, then waits for its goroutines to block.
func pass(d time.Duration) {
	time.Sleep(d)
	synctest.Wait()
}

// startCaller starts one GET /menu with h whose caller leaves after leave:
// it hangs up, or, if deadline, its own deadline passes. 0 never leaves.
func startCaller(t testing.TB, h http.Handler, leave time.Duration, deadline bool) *menutest.Pending {
	ctx, cancel := context.WithCancel(context.Background())
	switch {
	case leave > 0 && deadline:
		ctx, cancel = context.WithTimeout(context.Background(), leave)
	case leave > 0:
		time.AfterFunc(leave, cancel)
	}
	t.Cleanup(cancel)
	return menutest.StartRequest(h, httptest.NewRequest(http.MethodGet, "/menu", nil).WithContext(ctx))
}

// requireAnswer checks the menu answered after at, not 1ns before.
func requireAnswer(t testing.TB, menu *menutest.Pending, at time.Duration, fix string) {
	t.Helper()
	pass(at - time.Nanosecond)
	must(t, !menu.Answered(), "got %v, want no answer before %v (%s)", menu, at, fix)
	pass(time.Nanosecond)
	must(t, menu.Answered(), "got still no answer at %v, want one by then (%s)", at, fix)
}

// dialTimeout is a stock client's transport that gives up after 300ms, as one
// whose net.Dialer has a Timeout does: its error wraps context.DeadlineExceeded.
type dialTimeout struct{}

func (dialTimeout) RoundTrip(req *http.Request) (*http.Response, error) {
	select {
	case <-time.After(300 * time.Millisecond):
		return nil, &net.OpError{Op: "dial", Net: "tcp", Err: fmt.Errorf("i/o timeout: %w", context.DeadlineExceeded)}
	case <-req.Context().Done():
		return nil, context.Cause(req.Context())
	}
}

// lateOverflow is a stock client's transport whose answer is one byte over
// maxStockBody, the last one read just after the call's context ended.
type lateOverflow struct{}

func (lateOverflow) RoundTrip(req *http.Request) (*http.Response, error) {
	body := io.MultiReader(strings.NewReader(strings.Repeat(" ", maxStockBody)), lastByte{req.Context()})
	return &http.Response{StatusCode: http.StatusOK, Status: "200 OK", Header: http.Header{"Content-Type": {"application/json"}}, Body: io.NopCloser(body), Request: req}, nil
}

// lastByte gives one byte once ctx has ended (after 10s if it never does).
type lastByte struct{ ctx context.Context }

func (b lastByte) Read(p []byte) (int, error) {
	select {
	case <-b.ctx.Done():
	case <-time.After(10 * time.Second):
	}
	return copy(p, " "), io.EOF
}
