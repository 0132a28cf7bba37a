package menutest

// Step 02's tests, carried into the later menu steps: whatever else a
// version of the menu does, when the stock service answers in time it
// behaves as version 1 did. Each later step calls these from its own
// menu_test.go; their messages name step 02's tasks.

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/icecreamcorp/go-cancellation-workshop/internal/fakestock"
)

// ServesTheMenu checks step 02's task 1 on a later version of the menu:
// newMenu returns the menu under test, asking stock for its stock list.
func ServesTheMenu(t *testing.T, newMenu func(stock *Stock) http.Handler) {
	t.Run("serves the menu built from the stock, in the stock's order", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			stock := NewStock(t, fakestock.Reply{})
			rec := Get(newMenu(stock))

			requireAskedOnce(t, stock, rec, "step 02, task 1: call s.stockURL with s.client")
			require.Equal(t, http.StatusOK, rec.Code, "menu answered %d: %s; want 200 with the menu (step 02, task 1)", rec.Code, Body(rec))
			assert.Equal(t, "application/json", MediaType(rec), "menu answered Content-Type %q; want JSON (step 02, task 1: answer with writeJSON)", rec.Result().Header.Get("Content-Type"))
			assert.JSONEq(t, MenuJSON, rec.Body.String(), "menu answered the wrong menu (step 02, task 1: one item per flavour, available when its stock > 0)")
		})
	})

	t.Run("builds the menu from what the stock service says, not from a list of its own", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			stock := NewStock(t, fakestock.Reply{Body: `{"stock":[
				{"id":"p","name":"Pistachio","stock":0},
				{"id":"m","name":"Mint","stock":1}],"delay":0}`})
			rec := Get(newMenu(stock))

			require.Equal(t, http.StatusOK, rec.Code, "menu answered %d: %s; want 200 (step 02, task 1)", rec.Code, Body(rec))
			assert.JSONEq(t, `{"menu":[
				{"id":"p","name":"Pistachio","available":false},
				{"id":"m","name":"Mint","available":true}]}`, rec.Body.String(),
				"menu answered the wrong menu for a stock of Pistachio (0) and Mint (1) (step 02, task 1: build the menu from the decoded stock)")
		})
	})

	t.Run("an empty stock makes an empty menu, not null", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			stock := NewStock(t, fakestock.Reply{Body: `{"stock":[],"delay":0}`})
			rec := Get(newMenu(stock))

			require.Equal(t, http.StatusOK, rec.Code, "menu answered %d: %s; want 200 (step 02, task 1)", rec.Code, Body(rec))
			assert.JSONEq(t, `{"menu":[]}`, rec.Body.String(), "a nil slice encodes as null (step 02, task 1: start the menu with make)")
		})
	})
}

// oneValue is the hint for a body that holds more than one JSON value.
const oneValue = "one JSON value, then the end of the body: after Decode, dec.Token() must return io.EOF (dec.More() misses a stray } or ])"

// AnswersBadGateway checks step 02's task 2: every failure of the stock
// service is a 502 with a JSON error; maxStockBody is the menu's limit.
func AnswersBadGateway(t *testing.T, newMenu func(stock *Stock) http.Handler, maxStockBody int) {
	for _, tc := range []struct {
		what  string // what the stock service does
		reply fakestock.Reply
		hint  string // what to look at if the menu gets it wrong
	}{
		{"hangs up without answering", fakestock.Reply{Drop: true}, "an error from Get; when Get fails, resp is nil, with no body to close"},
		{"answers 500", fakestock.Reply{Status: http.StatusInternalServerError, Body: `{"error":"out of cones"}`}, "check resp.StatusCode"},
		{"answers 404 with a stock list", fakestock.Reply{Status: http.StatusNotFound, Body: `{"stock":[]}`}, "check resp.StatusCode before decoding"},
		{"sends something that is not JSON", fakestock.Reply{Body: "<html>Gateway lunch break</html>"}, "an error from Decode"},
		{"sends half a JSON document", fakestock.Reply{Body: `{"stock":[{"id":"p"`}, "an error from Decode"},
		{"sends JSON without a stock list", fakestock.Reply{Body: `{"flavours":[]}`}, `no "stock" field decodes to a nil list`},
		{"sends a stock list that is not a list", fakestock.Reply{Body: `{"stock":"plenty"}`}, "an error from Decode"},
		{"sends a flavour whose stock is not a number", fakestock.Reply{Body: `{"stock":[{"id":"p","name":"Pistachio","stock":"lots"}]}`},
			"an error from Decode: it fills in what it can, and then reports the field of the wrong type — never ignore it"},
		{"sends 1 MiB and 1 byte of valid JSON", fakestock.Reply{Size: maxStockBody + 1}, "read at most maxStockBody bytes: an unbounded decoder reads it all and answers 200"},
		{"sends a second document after its JSON", fakestock.Reply{Body: `{"stock":[]}{"stock":[]}`}, oneValue},
		{"sends a stray brace after its JSON", fakestock.Reply{Body: `{"stock":[]}}`}, oneValue},
		{"sends a null flavour", fakestock.Reply{Body: `{"stock":[null]}`}, "null decodes, without an error, to a flavour with no id and no name: check that every flavour has both"},
		{"sends a flavour without a name", fakestock.Reply{Body: `{"stock":[{"id":"p","stock":1}]}`}, "check that every flavour has an id and a name"},
		{"sends a flavour without an id", fakestock.Reply{Body: `{"stock":[{"name":"Pistachio","stock":1}]}`}, "check that every flavour has an id and a name"},
	} {
		t.Run("answers 502 when the stock service "+tc.what, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				stock := NewStock(t, tc.reply)
				rec := Get(newMenu(stock))

				requireAskedOnce(t, stock, rec, "step 02, task 1 first: call s.stockURL with s.client")
				assert.Equal(t, http.StatusBadGateway, rec.Code,
					"the stock service %s; menu answered %d: %s; want 502 Bad Gateway (step 02, task 2: %s)", tc.what, rec.Code, Body(rec), tc.hint)
				AssertJSONError(t, rec, "step 02, task 2: answer errors with writeError")
			})
		})
	}

	t.Run("accepts a body of exactly 1 MiB", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			stock := NewStock(t, fakestock.Reply{Size: maxStockBody})
			rec := Get(newMenu(stock))

			assert.Equal(t, http.StatusOK, rec.Code,
				"the stock service sent exactly maxStockBody bytes of valid JSON; menu answered %d: %s; want 200 (step 02, task 2: the limit is maxStockBody, not one byte less)", rec.Code, Body(rec))
		})
	})
}

// ClosesTheBody checks step 02's task 3: the stock's response body is closed
// on every path; maxStockBody is the menu's limit.
func ClosesTheBody(t *testing.T, newMenu func(stock *Stock) http.Handler, maxStockBody int) {
	for _, tc := range []struct {
		what  string
		reply fakestock.Reply
	}{
		{"answered 200", fakestock.Reply{}},
		{"answered 500", fakestock.Reply{Status: http.StatusInternalServerError}},
		{"sent malformed JSON", fakestock.Reply{Body: "not json"}},
		{"sent JSON without a stock list", fakestock.Reply{Body: `{"flavours":[]}`}},
		{"sent a body that is too large", fakestock.Reply{Size: 2 * maxStockBody}},
	} {
		t.Run("closes the body after the stock service "+tc.what, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				stock := NewStock(t, tc.reply)
				rec := Get(newMenu(stock))

				requireAskedOnce(t, stock, rec, "step 02, task 1 first: call s.stockURL with s.client")
				assert.Zero(t, stock.OpenBodies(),
					"the stock service %s; menu answered %d and left the response body open; want it closed on every path (step 02, task 3: defer resp.Body.Close() right after a successful Get)",
					tc.what, rec.Code)
			})
		})
	}
}

// requireAskedOnce stops the test unless the menu, which answered rec, sent
// exactly one request to stock; task says what to read if it did not.
func requireAskedOnce(t testing.TB, stock *Stock, rec *httptest.ResponseRecorder, task string) {
	t.Helper()
	switch n := stock.Started(); n {
	case 1:
	case 0:
		require.FailNow(t, fmt.Sprintf("menu answered %d: %s, and never asked the stock service; want it to ask once, with the client it was given — "+
			"http.Get, http.DefaultClient or an http.Client of its own cannot reach the tests' stock service (%s)", rec.Code, Body(rec), task))
	default:
		require.FailNow(t, fmt.Sprintf("menu answered %d: %s, and asked the stock service %d times; want once (%s)", rec.Code, Body(rec), n, task))
	}
}
