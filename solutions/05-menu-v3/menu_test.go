package main

import (
	"net/http"
	"testing"
	"time"

	"github.com/icecreamcorp/go-cancellation-workshop/internal/menutest"
)

// testTimeout is the menu's timeout in tests, as in production: 1s.
const testTimeout = time.Second

// newTestMenu is the menu under test, asking stock for its stock list.
func newTestMenu(stock *menutest.Stock) http.Handler {
	return newMenuService(stock.Client(), menutest.StockURL, testTimeout).handler()
}

// Step 02's tests still hold: version 3 behaves as version 1 whenever the
// stock service answers in time (internal/menutest/v1.go).
func TestVersion1(t *testing.T) {
	t.Run("menu", func(t *testing.T) { menutest.ServesTheMenu(t, newTestMenu) })
	t.Run("failures", func(t *testing.T) { menutest.AnswersBadGateway(t, newTestMenu, maxStockBody) })
	t.Run("body", func(t *testing.T) { menutest.ClosesTheBody(t, newTestMenu, maxStockBody) })
}
