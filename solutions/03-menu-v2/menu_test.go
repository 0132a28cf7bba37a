package main

import (
	"net/http"
	"testing"
	"time"

	"github.com/icecreamcorp/go-cancellation-workshop/internal/menutest"
)

// Step 02's tests still hold: version 2 behaves as version 1 whenever the
// stock service answers in time. They live in internal/menutest (v1.go),
// shared by every later menu step; their messages name step 02's tasks.

// testTimeout is the menu's timeout in tests, as in production: 1s.
const testTimeout = time.Second

// newTestMenu is the menu under test, asking stock for its stock list.
func newTestMenu(stock *menutest.Stock) http.Handler {
	return newMenuService(stock.Client(), menutest.StockURL, testTimeout).handler()
}

func TestMenu(t *testing.T)          { menutest.ServesTheMenu(t, newTestMenu) }
func TestStockFailures(t *testing.T) { menutest.AnswersBadGateway(t, newTestMenu, maxStockBody) }
func TestStockBody(t *testing.T)     { menutest.ClosesTheBody(t, newTestMenu, maxStockBody) }
