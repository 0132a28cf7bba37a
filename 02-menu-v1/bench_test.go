package main

import (
	"net/http"
	"testing"

	"github.com/icecreamcorp/go-cancellation-workshop/internal/menutest"
)

// BenchmarkMenu measures what one GET /menu of menu v1 costs when the stock
// service answers at once. Step 05 runs the same benchmark on menu v3:
//
//	go test -run '^$' -bench Menu -count 6 ./02-menu-v1 ./05-menu-v3
func BenchmarkMenu(b *testing.B) {
	menutest.BenchmarkMenu(b, func(client *http.Client, stockURL string) http.Handler {
		return newMenuService(client, stockURL).handler()
	})
}
