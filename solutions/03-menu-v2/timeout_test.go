package main

import (
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/icecreamcorp/go-cancellation-workshop/internal/fakestock"
	"github.com/icecreamcorp/go-cancellation-workshop/internal/menutest"
)

// Task 1: version 2 answers within its timeout, whatever the stock service
// does: at the timeout with a 504, or as soon as the stock service answers.
func TestTimeout(t *testing.T) {
	for _, tc := range []struct {
		name    string
		timeout time.Duration
		reply   fakestock.Reply
		at      time.Duration // when the menu answers
		want    int
		fix     string
	}{
		{"stock takes 10s", time.Second, fakestock.Reply{Delay: 10 * time.Second}, time.Second, http.StatusGatewayTimeout,
			"race the call against a timer; 504, not 500: the README says why"},
		{"timeout 250ms", 250 * time.Millisecond, fakestock.Reply{Delay: 10 * time.Second}, 250 * time.Millisecond, http.StatusGatewayTimeout,
			"a timer of s.timeout"},
		{"stock just in time", time.Second, fakestock.Reply{Delay: time.Second - time.Nanosecond}, time.Second - time.Nanosecond, http.StatusOK,
			"select on the result as well as the timer"},
		{"stock fails first", time.Second, fakestock.Reply{Delay: 300 * time.Millisecond, Drop: true}, 300 * time.Millisecond, http.StatusBadGateway,
			"a failed call wins the race too; only a timeout is a 504"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				stock := menutest.NewStock(t, tc.reply)
				menu := menutest.Start(newMenuService(stock.Client(), menutest.StockURL, tc.timeout).handler())

				time.Sleep(tc.at - time.Nanosecond)
				synctest.Wait()
				require.False(t, menu.Answered(), "%v; want %d after %v, not before (%s)", menu, tc.want, tc.at, tc.fix)
				time.Sleep(time.Nanosecond)
				synctest.Wait()
				require.True(t, menu.Answered(), "%v; want %d after %v (%s)", menu, tc.want, tc.at, tc.fix)
				require.Equal(t, tc.want, menu.Rec.Code, "%v; want %d (%s)", menu, tc.want, tc.fix)
				if tc.want == http.StatusOK {
					assert.JSONEq(t, menutest.MenuJSON, menu.Rec.Body.String(), "got the wrong menu")
				} else {
					menutest.AssertJSONError(t, menu.Rec, "answer with writeError")
				}
			})
		})
	}
}
