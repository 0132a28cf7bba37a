package menutest

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/icecreamcorp/go-cancellation-workshop/internal/fakestock"
	"github.com/icecreamcorp/go-cancellation-workshop/internal/leakcheck"
)

// slowMenu stands in for a menu service: it asks the stock through client
// and answers 200 with the stock's body, or 502.
func slowMenu(client *http.Client) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		resp, err := client.Get(StockURL)
		if err != nil {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadGateway)
			io.WriteString(w, `{"error":"unreachable"}`)
			return
		}
		defer resp.Body.Close()
		io.Copy(w, resp.Body)
	})
}

func TestPending(t *testing.T) {
	leakcheck.Check(t)
	synctest.Test(t, func(t *testing.T) {
		stock := NewStock(t, fakestock.Reply{Delay: 2 * time.Second})
		menu := Start(slowMenu(stock.Client()))

		time.Sleep(2*time.Second - time.Nanosecond)
		synctest.Wait()
		assert.False(t, menu.Answered(), "the menu cannot answer before the stock does")
		assert.Equal(t, "menu had not answered after 1.999999999s", menu.String())
		time.Sleep(time.Nanosecond)
		synctest.Wait()
		assert.True(t, menu.Answered(), "the menu answers as soon as the stock does")
		assert.Equal(t, 2*time.Second, menu.Took)
		assert.Contains(t, menu.String(), "menu answered 200 after 2s: {")
		assert.Zero(t, stock.OpenBodies(), "the menu closed the body")
	})
}

func TestClosesBodiesLeftOpen(t *testing.T) {
	leakcheck.Check(t)
	var stock *Stock
	t.Run("a menu that forgets to close its body", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			stock = NewStock(t, fakestock.Reply{})
			resp, err := stock.Client().Get(StockURL)
			require.NoError(t, err)
			_ = resp // the body is never closed
			assert.Equal(t, 1, stock.OpenBodies())
		})
	})
	assert.Zero(t, stock.OpenBodies(), "NewStock's cleanup should close what the menu left open")
}

func TestAssertJSONError(t *testing.T) {
	rec := httptest.NewRecorder()
	rec.Header().Set("Content-Type", "application/json; charset=utf-8")
	rec.WriteHeader(http.StatusBadGateway)
	io.WriteString(rec, `{"error":"stock service unreachable"}`+"\n")
	AssertJSONError(t, rec, "task 0")
	assert.Equal(t, "application/json", MediaType(rec))
	assert.Equal(t, `{"error":"stock service unreachable"}`, Body(rec))
}

func TestClosedPortURL(t *testing.T) {
	leakcheck.Check(t)
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	_, err := (&http.Client{Transport: tr}).Get(ClosedPortURL(t))
	assert.Error(t, err, "nothing should listen at the closed port")
}

func TestHoldUntil(t *testing.T) {
	leakcheck.Check(t)
	release := make(chan struct{})
	fake := fakestock.New()
	stockURL, client := fakestock.Loopback(t, HoldUntil(release, fake))
	menu := Start(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		resp, err := client.Get(stockURL)
		if assert.NoError(t, err) {
			resp.Body.Close()
		}
	}))
	assert.False(t, menu.Wait(50*time.Millisecond), "the stock is held until released")
	close(release)
	assert.True(t, menu.Wait(10*time.Second), "once released, the stock answers")
}

func TestGetSurvivesAPanic(t *testing.T) {
	rec := Get(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {
		var stock map[string]int
		//lint:ignore SA5000 the panic is the point of this test
		stock["pistachio"]++ // assignment to entry in nil map
	}))
	assert.Equal(t, http.StatusInternalServerError, rec.Code)
	assert.Contains(t, rec.Body.String(), "PANIC at menutest_test.go:")
	assert.Contains(t, rec.Body.String(), "nil map")
}

func TestMenuJSONIsTheMenuOfTheStock(t *testing.T) {
	var menu struct {
		Menu []struct {
			ID, Name  string
			Available bool
		}
	}
	require.NoError(t, json.Unmarshal([]byte(MenuJSON), &menu))
	require.Len(t, menu.Menu, len(fakestock.Flavours))
	for i, f := range fakestock.Flavours {
		item := menu.Menu[i]
		assert.Equal(t, f.ID, item.ID)
		assert.Equal(t, f.Name, item.Name)
		assert.Equal(t, f.Stock > 0, item.Available, "%s has a stock of %d", f.Name, f.Stock)
	}
}
