package main

import (
	"net/http"
	"testing"
	"time"

	"github.com/icecreamcorp/go-cancellation-workshop/internal/menutest"
)

// BenchmarkMenu measures what one GET /menu of menu v3 costs when the stock
// service answers at once: what a context with a deadline, the counters and
// the breaker add to v1's cost, which step 02 measures the same way:
//
//	go test -run '^$' -bench Menu -count 6 ./02-menu-v1 ./05-menu-v3
func BenchmarkMenu(b *testing.B) {
	menutest.BenchmarkMenu(b, func(client *http.Client, stockURL string) http.Handler {
		return newMenuService(client, stockURL, time.Second).handler()
	})
}
