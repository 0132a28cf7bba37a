package menutest

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/icecreamcorp/go-cancellation-workshop/internal/fakestock"
	"github.com/icecreamcorp/go-cancellation-workshop/internal/leakcheck"
	"github.com/icecreamcorp/go-cancellation-workshop/internal/load/cpu"
)

// BenchmarkMenu measures one GET /menu over loopback TCP when the stock
// answers at once, and reports cpu-ns/op besides ns/op: on a busy machine the
// wall clock mostly measures the wait for a CPU.
func BenchmarkMenu(b *testing.B, newMenu func(client *http.Client, stockURL string) http.Handler) {
	leakcheck.Check(b)
	stockURL, client := fakestock.Loopback(b, fakestock.New()) // answers at once
	menu := httptest.NewServer(newMenu(client, stockURL))
	b.Cleanup(menu.Close)
	tr := &http.Transport{}
	b.Cleanup(tr.CloseIdleConnections)
	c := &http.Client{Transport: tr}

	b.ReportAllocs()
	start := cpu.Time()
	for b.Loop() {
		resp, err := c.Get(menu.URL + "/menu")
		if err != nil {
			b.Fatalf("GET /menu: %v", err)
		}
		io.Copy(io.Discard, resp.Body) //nolint:errcheck // a failed read shows in the status
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			b.Fatalf("GET /menu answered %d; want 200 — finish the step's tasks before measuring it", resp.StatusCode)
		}
	}
	b.ReportMetric(float64(cpu.Time()-start)/float64(b.N), "cpu-ns/op")
}
