package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/icecreamcorp/go-cancellation-workshop/internal/fakestock"
	"github.com/icecreamcorp/go-cancellation-workshop/internal/menutest"
)

// Task 4: a stock call ends for one of three reasons — our timeout (504), our
// caller leaving (499, and a log line), the stock service failing (502) — and
// only our timeout is called one.
func TestReasons(t *testing.T) {
	guard(t)
	const ms = time.Millisecond
	for _, tc := range []struct {
		name     string
		reply    fakestock.Reply
		stock    http.RoundTripper // if not nil, the stock client's transport, instead of the fake
		leave    time.Duration     // the caller hangs up then, or its own deadline passes
		deadline bool
		at       time.Duration // when the menu answers
		want     int
		says     string // in the answer
		fix      string
	}{
		{"our timeout", slow, nil, 0, false, testTimeout, http.StatusGatewayTimeout, menutest.StockURL, "wrap context.Cause(ctx) beside the call's own error"},
		{"stock hangs up", fakestock.Reply{Delay: 300 * ms, Drop: true}, nil, 0, false, 300 * ms, http.StatusBadGateway, "", "the stock service failed"},
		{"stock answers 504", fakestock.Reply{Delay: 300 * ms, Status: http.StatusGatewayTimeout}, nil, 0, false, 300 * ms, http.StatusBadGateway, "", "its timeout is not ours: errors.Is(err, errStockTooSlow)"},
		{"dial timeout", fakestock.Reply{}, dialTimeout{}, 0, false, 300 * ms, http.StatusBadGateway, "i/o timeout", "no context of ours ended: ask the context, not errors.Is(err, context.DeadlineExceeded)"},
		{"too large late", fakestock.Reply{}, lateOverflow{}, 0, false, testTimeout, http.StatusBadGateway, (&http.MaxBytesError{}).Error(), "label only an error that is the context's ending, not every error once ctx.Err() != nil"},
		{"caller hangs up", slow, nil, 300 * ms, false, 300 * ms, statusClientClosedRequest, "", "r.Context() ended: answer 499"},
		{"caller deadline", slow, nil, 500 * ms, true, 500 * ms, statusClientClosedRequest, "", "r.Context() ended: answer 499"},
	} {
		bubble(t, tc.name, func(t *testing.T) {
			client := &http.Client{Transport: tc.stock}
			if tc.stock == nil {
				client = menutest.NewStock(t, tc.reply).Client()
			} else {
				t.Cleanup(menutest.Settle)
			}
			svc := newMenuService(client, menutest.StockURL, testTimeout)
			var logs strings.Builder // read once the handler has returned
			svc.log = slog.New(slog.NewTextHandler(&logs, nil))
			menu := startCaller(t, svc.handler(), tc.leave, tc.deadline)
			requireAnswer(t, menu, tc.at, tc.fix)
			if tc.want == statusClientClosedRequest {
				assertCallerGone(t, menu)
				check(t, logs.Len() > 0, "got no line in s.log, want one: the 499 may reach nobody")
				check(t, !strings.Contains(logs.String(), errStockTooSlow.Error()), "s.log says %s; want no word of our timeout: label it with context.WithTimeoutCause, read it with context.Cause", logs.String())
				return
			}
			check(t, menu.Rec.Code == tc.want, "got %v, want %d (%s)", menu, tc.want, tc.fix)
			menutest.AssertJSONError(t, menu.Rec, "writeError")
			check(t, strings.Contains(menu.Rec.Body.String(), tc.says), "got %v, want the call's own error in the answer (%s)", menu, tc.fix)
		})
	}
}

// dialTimeout is a stock client's transport that gives up on its own after
// 300ms, as an http.Transport whose net.Dialer has a Timeout does. Its error,
// like the real one, wraps context.DeadlineExceeded.
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
// maxStockBody, the last byte coming just after the call's context ended:
// as from Go's transport, whose buffer still holds what arrived in time.
type lateOverflow struct{}

func (lateOverflow) RoundTrip(req *http.Request) (*http.Response, error) {
	body := io.MultiReader(strings.NewReader(strings.Repeat(" ", maxStockBody)), lastByte{req.Context()})
	return &http.Response{StatusCode: http.StatusOK, Status: "200 OK", Header: http.Header{}, Body: io.NopCloser(body), Request: req}, nil
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
