package menutest

import (
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/icecreamcorp/go-cancellation-workshop/internal/fakestock"
	"github.com/icecreamcorp/go-cancellation-workshop/internal/leakcheck"
)

// atImport is http.DefaultTransport once every package's init has run,
// before Main guards it.
var atImport http.RoundTripper

func TestMain(m *testing.M) {
	atImport = http.DefaultTransport
	Main(m)
}

// dialer names the function tr dials with.
func dialer(tr http.RoundTripper) string {
	dial := tr.(*http.Transport).DialContext
	return runtime.FuncForPC(reflect.ValueOf(dial).Pointer()).Name()
}

func TestImportLeavesDefaultTransport(t *testing.T) {
	assert.NotContains(t, dialer(atImport), "menutest", "importing menutest changed http.DefaultTransport; want it changed only by Main")
	assert.Contains(t, dialer(http.DefaultTransport), "menutest.guardDefaultTransport", "Main did not guard http.DefaultTransport")
}

func TestGuardRestores(t *testing.T) {
	before := http.DefaultTransport
	restore := guardDefaultTransport()
	assert.NotSame(t, before, http.DefaultTransport, "guarding replaces http.DefaultTransport")
	restore()
	assert.Same(t, before, http.DefaultTransport, "restore puts back the transport it replaced")
}

// TestGuardRefusesTestHosts is why the guard exists: without it, the first
// http.Get(StockURL) in a bubble looks stock.test up, and the second bubble's
// lookup crashes the test binary.
func TestGuardRefusesTestHosts(t *testing.T) {
	for _, tc := range []struct {
		name   string
		client *http.Client
	}{
		{"DefaultClient", http.DefaultClient},
		{"ClientOfItsOwn", &http.Client{}},
		{"CloneOfDefault", &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}}, // as main.go's newStockClient
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				_, err := tc.client.Get(StockURL)
				assert.ErrorIs(t, err, ErrNotTheGivenClient, "a .test host must fail at once, with no DNS lookup")
			})
		})
	}
}

func TestGuardedMenuAnswers502(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		stock := NewStock(t, fakestock.Reply{})
		rec := Get(slowMenu(http.DefaultClient)) // past the client it was given
		assert.Equal(t, http.StatusBadGateway, rec.Code, "a menu that calls http.DefaultClient gets an error, not the stock")
		assert.Zero(t, stock.Started(), "the stock service was reached without its client")
	})
}

func TestGuardLeavesOtherHosts(t *testing.T) {
	leakcheck.Check(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "hello")
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(http.DefaultTransport.(*http.Transport).CloseIdleConnections)
	resp, err := http.Get(srv.URL) // 127.0.0.1
	require.NoError(t, err, "the guard must not refuse hosts outside .test")
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	assert.Equal(t, "hello", strings.TrimSpace(string(b)))
}
