package main

import (
	"net/http"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/icecreamcorp/go-cancellation-workshop/internal/fakestock"
	"github.com/icecreamcorp/go-cancellation-workshop/internal/menutest"
)

// The tests of tasks 1 to 3 live in internal/menutest (v1.go), once: every
// later version of the menu must pass them too, and steps 03 and 05 call
// them as this file does. Read them there; their messages name step 02's
// tasks.

// newTestMenu is the menu under test, asking stock for its stock list.
func newTestMenu(stock *menutest.Stock) http.Handler {
	return newMenuService(stock.Client(), menutest.StockURL).handler()
}

// Task 1: GET /menu answers 200 with the menu built from the stock.
func TestMenu(t *testing.T) {
	menutest.ServesTheMenu(t, newTestMenu)

	t.Run("a flavour whose stock is below zero is not available", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			stock := menutest.NewStock(t, fakestock.Reply{Body: `{"stock":[{"id":"p","name":"Pistachio","stock":-1}],"delay":0}`})
			rec := menutest.Get(newTestMenu(stock))

			require.Equal(t, http.StatusOK, rec.Code, "menu answered %d: %s; want 200 (task 1)", rec.Code, menutest.Body(rec))
			assert.JSONEq(t, `{"menu":[{"id":"p","name":"Pistachio","available":false}]}`, rec.Body.String(),
				"a stock of -1 (a count gone wrong in the stock service) makes no ice cream; want Pistachio not available (task 1: available when its stock is above zero)")
		})
	})
}

// Task 2: every failure of the stock service is a 502 with a JSON error.
func TestStockFailures(t *testing.T) {
	menutest.AnswersBadGateway(t, newTestMenu, maxStockBody)

	// A net.Pipe has no buffer: the fake writes only what the menu reads, so
	// whether it finished writing says whether the menu read it all.
	for _, tc := range []struct {
		what  string
		reply fakestock.Reply
	}{
		{"2 MiB of JSON", fakestock.Reply{Size: 2 * maxStockBody}},
		{"its JSON and then 2 MiB of junk", fakestock.Reply{Body: `{"stock":[]}` + strings.Repeat("x", 2*maxStockBody)}},
	} {
		t.Run("reads at most maxStockBody bytes when the stock service sends "+tc.what, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				stock := menutest.NewStock(t, tc.reply)
				rec := menutest.Get(newTestMenu(stock))
				synctest.Wait()

				require.Equal(t, http.StatusBadGateway, rec.Code, "the stock service sent %s; menu answered %d: %s; want 502 (task 2: too large, or more than one JSON value)", tc.what, rec.Code, menutest.Body(rec))
				// A body left open (task 3) leaves the fake waiting to send the
				// rest, with no call recorded yet: that is not this test's business.
				for _, call := range stock.Calls() {
					assert.NotEqual(t, fakestock.Completed, call.Outcome,
						"the stock service sent %s: %v; the menu answered 502, but only after reading all of it; want it to stop at maxStockBody bytes (task 2: read the body, and what follows the JSON value, through http.MaxBytesReader or io.LimitReader — reading it all and then checking its length, or draining it with io.Copy(io.Discard, resp.Body), reads whatever a broken stock service sends, gigabytes included)", tc.what, call)
				}
			})
		})
	}
}

// Task 3: the stock's response body is closed on every path.
func TestStockBody(t *testing.T) { menutest.ClosesTheBody(t, newTestMenu, maxStockBody) }
