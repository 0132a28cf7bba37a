package main

import (
	"net/http"
	"testing"
	"time"

	"github.com/icecreamcorp/go-cancellation-workshop/internal/fakestock"
	"github.com/icecreamcorp/go-cancellation-workshop/internal/menutest"
)

// Task 3: one deadline covers the whole exchange, headers and body: a stock
// service that stalls its body gets a 504 at 1s from the start of the call.
func TestDeadlineCoversBody(t *testing.T) {
	guard(t)
	for _, headers := range []time.Duration{0, 600 * time.Millisecond} {
		bubble(t, "headers after "+headers.String(), func(t *testing.T) {
			stock := menutest.NewStock(t, fakestock.Reply{Delay: headers, StallBody: true})
			menu := menutest.Start(newTestMenu(stock))
			requireAnswer(t, menu, testTimeout, "cancel once the body is read: defer cancel() in fetchStockWithin")
			check(t, menu.Rec.Code == http.StatusGatewayTimeout, "got %v, want 504: reading the body is part of the call", menu)
			requireAbandoned(t, stock, menu, testTimeout, "the body is read under the same context")
		})
	}
}
