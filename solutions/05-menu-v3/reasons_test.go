package main

import (
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

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/icecreamcorp/go-cancellation-workshop/internal/fakestock"
	"github.com/icecreamcorp/go-cancellation-workshop/internal/leakcheck"
	"github.com/icecreamcorp/go-cancellation-workshop/internal/menutest"
)

// Task 4: a stock call can end for three reasons — our timeout, our client
// leaving, the stock service failing — and each has its own answer.
func TestReasons(t *testing.T) {
	requireNoLeak(t)
	leakcheck.Check(t)

	for _, tc := range []struct {
		what     string
		reply    fakestock.Reply
		deadline time.Duration // of the menu's own request, if any
		at       time.Duration // when the menu should be done
		want     int           // its status; 0 for "no menu, and a status that blames nobody" (the caller left)
		hint     string
	}{
		{"the stock service takes 10s", fakestock.Reply{Delay: 10 * time.Second}, 0, testTimeout, http.StatusGatewayTimeout,
			"our timeout: context.Cause(ctx) is the cause given to context.WithTimeoutCause"},
		{"the stock service hangs up after 300ms", fakestock.Reply{Delay: 300 * time.Millisecond, Drop: true}, 0, 300 * time.Millisecond, http.StatusBadGateway,
			"the stock service failed, and our context is still alive"},
		{"the stock service itself answers 504 after 300ms", fakestock.Reply{Delay: 300 * time.Millisecond, Status: http.StatusGatewayTimeout}, 0, 300 * time.Millisecond, http.StatusBadGateway,
			"its timeout is not ours: tell them apart by identity, errors.Is(err, yourCause), never by reading error messages"},
		{"the menu's own caller had a deadline of 500ms", fakestock.Reply{Delay: 10 * time.Second}, 500 * time.Millisecond, 500 * time.Millisecond, 0,
			"the caller's deadline ended r.Context(), and with it the stock call's context: ctx.Err() is DeadlineExceeded, as for our timeout, but context.Cause(ctx) is not our cause — answer 499, as for a client who left"},
	} {
		t.Run("when "+tc.what, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				stock := menutest.NewStock(t, tc.reply)
				ctx, cancel := context.Background(), context.CancelFunc(func() {})
				if tc.deadline > 0 {
					ctx, cancel = context.WithTimeout(ctx, tc.deadline)
				}
				defer cancel()
				menu := menutest.StartRequest(newTestMenu(stock), httptest.NewRequest(http.MethodGet, "/menu", nil).WithContext(ctx))

				time.Sleep(tc.at)
				synctest.Wait()
				require.True(t, menu.Answered(), "%s; %v; want the handler done after %v (task 4: %s)", tc.what, menu, tc.at, tc.hint)
				if tc.want == 0 {
					assertNoMenuForCallerGone(t, menu, tc.what, "task 4: "+tc.hint)
					return
				}
				assert.Equal(t, tc.want, menu.Rec.Code, "%s; %v; want %d (task 4: %s)", tc.what, menu, tc.want, tc.hint)
				menutest.AssertJSONError(t, menu.Rec, "task 4")
				if tc.want == http.StatusGatewayTimeout {
					assert.Contains(t, menu.Rec.Body.String(), menutest.StockURL,
						"%s; %v; want the 504's message to keep the transport's error, which names the stock URL and what went wrong, beside the cause (task 4: wrap both — returning context.Cause(ctx) alone throws the transport's error away)", tc.what, menu)
				}
			})
		})
	}

	for _, tc := range []struct {
		what      string
		transport http.RoundTripper
		at        time.Duration // when the menu should answer 502
		says      string        // what its message must keep
		why       string
	}{
		{"the stock client's own dial timeout passes after 300ms", dialTimeout{}, 300 * time.Millisecond, "i/o timeout",
			"the error wraps context.DeadlineExceeded, and no context of ours has ended: ask the context why it ended, never errors.Is(err, context.DeadlineExceeded) alone"},
		{"the stock body is too large just after the deadline", lateOverflow{}, testTimeout, (&http.MaxBytesError{}).Error(),
			"the body's size ended the call, not our deadline, though it had passed by the time fetchStockWithin looked: label only an error that is the context's ending, errors.Is(err, ctx.Err()) or errors.Is(err, context.Cause(ctx)), not every error once ctx.Err() != nil"},
	} {
		t.Run("when "+tc.what, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				t.Cleanup(menutest.Settle)
				svc := newMenuService(&http.Client{Transport: tc.transport}, menutest.StockURL, testTimeout)
				menu := menutest.Start(svc.handler())

				time.Sleep(tc.at)
				synctest.Wait()
				require.True(t, menu.Answered(), "%s; %v; want 502 after %v (task 4)", tc.what, menu, tc.at)
				assert.Equal(t, http.StatusBadGateway, menu.Rec.Code, "%s; %v; want 502 (task 4: %s)", tc.what, menu, tc.why)
				assert.Contains(t, menu.Rec.Body.String(), tc.says, "%s; %v; want the call's own error in the message (task 4)", tc.what, menu)
			})
		})
	}

	t.Run("logs that the client left: the answer may reach nobody", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			stock := menutest.NewStock(t, fakestock.Reply{Delay: 10 * time.Second})
			svc := newMenuService(stock.Client(), menutest.StockURL, testTimeout)
			logs := &logRecorder{}
			svc.log = slog.New(logs)
			ctx, hangUp := context.WithCancel(context.Background())
			menu := menutest.StartRequest(svc.handler(), httptest.NewRequest(http.MethodGet, "/menu", nil).WithContext(ctx))

			time.Sleep(300 * time.Millisecond)
			hangUp()
			synctest.Wait()
			require.True(t, menu.Answered(), "the menu's client left after 300ms; %v; want the handler to return then (task 2)", menu)
			assert.NotEmpty(t, logs.lines(), "the menu's client left after 300ms; %v; want a line in s.log saying so: whoever runs the service learns it there, not from an answer nobody reads (task 4: log it with s.log)", menu)
			for _, line := range logs.lines() {
				assert.NotContains(t, line, errStockTooSlow.Error(),
					"the menu's client left after 300ms, long before our 1s timeout; s.log says %q; want the reason the client gave, not ours: whoever reads the log must not go looking for a slow stock service (task 4: wrap errStockTooSlow only when our own deadline ended the call — context.WithTimeoutCause, then context.Cause(ctx) — never for every ended context)", line)
			}
		})
	})
}

// dialTimeout is a stock client's transport that gives up on its own after
// 300ms, as an http.Transport whose net.Dialer has a Timeout does when the
// stock service's host does not answer. Its error, like the real one, wraps
// context.DeadlineExceeded, though no context of the menu's has ended.
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
// maxStockBody, and the last byte comes just after the call's context ended:
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
