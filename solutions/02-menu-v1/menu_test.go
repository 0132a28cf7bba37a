package main

import (
	"net/http"
	"testing"

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
func TestMenu(t *testing.T) { menutest.ServesTheMenu(t, newTestMenu) }

// Task 2: every failure of the stock service is a 502 with a JSON error.
func TestStockFailures(t *testing.T) { menutest.AnswersBadGateway(t, newTestMenu, maxStockBody) }

// Task 3: the stock's response body is closed on every path.
func TestStockBody(t *testing.T) { menutest.ClosesTheBody(t, newTestMenu, maxStockBody) }
