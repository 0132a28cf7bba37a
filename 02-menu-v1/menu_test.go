package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"

	"github.com/icecreamcorp/go-cancellation-workshop/internal/menutest"
)

// The checks of tasks 1 to 3 live in internal/menutest (v1.go), once: every
// later version of the menu must pass them too.

// newTestMenu is the menu under test, asking stock for its stock list.
func newTestMenu(stock *menutest.Stock) http.Handler {
	return newMenuService(stock.Client(), menutest.StockURL).handler()
}

func TestMenu(t *testing.T) { menutest.ServesTheMenu(t, newTestMenu) }

// One menu item per flavour, in order, available when its stock is above
// zero; an empty stock is an empty menu, not null.
func Example_buildMenu() {
	for _, stock := range [][]flavour{
		{{ID: "p", Name: "Pistachio", Stock: 0}, {ID: "m", Name: "Mint", Stock: 3}},
		{},
	} {
		menu, _ := json.Marshal(buildMenu(stock))
		fmt.Println(string(menu))
	}
	// Output:
	// [{"id":"p","name":"Pistachio","available":false},{"id":"m","name":"Mint","available":true}]
	// []
}

func TestStockFailures(t *testing.T) {
	menutest.AnswersBadGateway(t, newTestMenu, maxStockBody)
	menutest.ReadsAtMostTheLimit(t, newTestMenu, maxStockBody)
	t.Run("stock client", func(t *testing.T) {
		// No leakcheck here: a body left open is task 3's, and TestStockBody's.
		menutest.GuardsTheStockClient(t, newStockClient(), func(client *http.Client, stockURL string) http.Handler {
			return newMenuService(client, stockURL).handler()
		})
	})
}

func TestStockBody(t *testing.T) { menutest.ClosesTheBody(t, newTestMenu, maxStockBody) }
