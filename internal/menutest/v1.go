package menutest

// Version 1's behaviour, checked in every menu step: when the stock service
// answers in time, every version behaves as version 1 did.

import (
	"cmp"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/icecreamcorp/go-cancellation-workshop/internal/fakestock"
)

// replyCase is what the stock service does, and what the menu should do.
type replyCase struct {
	name  string
	reply fakestock.Reply
	fix   string // or, in ServesTheMenu, the menu
}

// eachReply calls check with the menu's answer to each case's reply, until the first failure.
func eachReply(t *testing.T, cases []replyCase, newMenu func(stock *Stock) http.Handler, check func(t *testing.T, tc replyCase, stock *Stock, rec *httptest.ResponseRecorder)) {
	for _, tc := range cases {
		if !t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				stock := NewStock(t, tc.reply)
				rec := Get(newMenu(stock))
				synctest.Wait()
				check(t, tc, stock, rec)
			})
		}) {
			return // the first failure says enough
		}
	}
}

// ServesTheMenu checks that GET /menu answers 200 with the menu built from
// the stock: one item per flavour, in order, available when its stock > 0.
func ServesTheMenu(t *testing.T, newMenu func(stock *Stock) http.Handler) {
	eachReply(t, []replyCase{
		{"real stock", fakestock.Reply{}, MenuJSON},
		{"other stock", fakestock.Reply{Body: `{"stock":[{"id":"p","name":"Pistachio","stock":0},{"id":"m","name":"Mint","stock":1}]}`},
			`{"menu":[{"id":"p","name":"Pistachio","available":false},{"id":"m","name":"Mint","available":true}]}`},
		{"stock below zero", fakestock.Reply{Body: `{"stock":[{"id":"p","name":"Pistachio","stock":-1}]}`},
			`{"menu":[{"id":"p","name":"Pistachio","available":false}]}`},
		{"empty stock", fakestock.Reply{Body: `{"stock":[]}`}, `{"menu":[]}`},
	}, newMenu, func(t *testing.T, tc replyCase, stock *Stock, rec *httptest.ResponseRecorder) {
		requireAskedOnce(t, stock, rec)
		if rec.Code != http.StatusOK || MediaType(rec) != "application/json" {
			t.Fatalf("got %d %s, Content-Type %q; want 200 with the menu as JSON (writeJSON)", rec.Code, Body(rec), rec.Result().Header.Get("Content-Type"))
		}
		if !EqualJSON(rec.Body.String(), tc.fix) {
			t.Errorf("got %s, want %s (one item per flavour, available when its stock > 0; make, not var: nil encodes as null)", Body(rec), tc.fix)
		}
	})
}

const oneValue = "after Decode, dec.Token() must return io.EOF; dec.More() misses a stray }"

// AnswersBadGateway checks that every failure of the stock service is a 502
// with a JSON error that says what failed; maxStockBody is the menu's limit.
// The cases last, in served, are no failure: a 200.
func AnswersBadGateway(t *testing.T, newMenu func(stock *Stock) http.Handler, maxStockBody int) {
	served := map[string]bool{"exactly the limit": true, "stock as application/json; charset=utf-8": true, "stock as application/json": true, "stock as Application/JSON": true}
	eachReply(t, []replyCase{
		{"hangs up", fakestock.Reply{Drop: true}, "an error from Get; then there is no body to close"},
		{"answers 500", fakestock.Reply{Status: http.StatusInternalServerError, Body: `{"error":"out of cones"}`}, "check resp.StatusCode"},
		{"stock as text/html", fakestock.Reply{ContentType: "text/html; charset=utf-8"}, "check the Content-Type: mime.ParseMediaType, then the media type == \"application/json\""},
		{"stock as application/json-seq", fakestock.Reply{ContentType: "application/json-seq"}, "compare the media type mime.ParseMediaType returns, not a prefix"},
		{"answers 302 with a stock", fakestock.Reply{Status: http.StatusFound, Body: `{"stock":[]}`}, "only a 200 is a stock: check resp.StatusCode != 200 before decoding"},
		{"not JSON", fakestock.Reply{Body: "<html>Gateway lunch break</html>"}, "an error from Decode"},
		{"half a document", fakestock.Reply{Body: `{"stock":[{"id":"p"`}, "an error from Decode"},
		{"no stock list", fakestock.Reply{Body: `{"flavours":[]}`}, `a missing "stock" decodes to a nil list`},
		{"stock not a list", fakestock.Reply{Body: `{"stock":"plenty"}`}, "an error from Decode"},
		{"stock not a number", fakestock.Reply{Body: `{"stock":[{"id":"p","name":"Pistachio","stock":"lots"}]}`}, "Decode fills in what it can, then reports the field: never ignore it"},
		{"too large", fakestock.Reply{Size: maxStockBody + 1}, "read through http.MaxBytesReader"},
		{"second document", fakestock.Reply{Body: `{"stock":[]}{"stock":[]}`}, oneValue},
		{"stray brace", fakestock.Reply{Body: `{"stock":[]}}`}, oneValue},
		{"null flavour", fakestock.Reply{Body: `{"stock":[null]}`}, "a null decodes to a flavour with no id and no name: check each flavour"},
		{"flavour without a name", fakestock.Reply{Body: `{"stock":[{"id":"p","stock":1}]}`}, "check that each flavour has an id and a name"},
		{"flavour without an id", fakestock.Reply{Body: `{"stock":[{"name":"Pistachio","stock":1}]}`}, "check that each flavour has an id and a name"},
		{"stock as application/json; charset=utf-8", fakestock.Reply{ContentType: "application/json; charset=utf-8"}, "the real stock service's: compare the media type mime.ParseMediaType returns"},
		{"stock as application/json", fakestock.Reply{ContentType: "application/json"}, "JSON with no charset is JSON: compare the media type mime.ParseMediaType returns"},
		{"stock as Application/JSON", fakestock.Reply{ContentType: "Application/JSON; charset=UTF-8"}, "a media type's case does not count: compare what mime.ParseMediaType returns"},
		{"exactly the limit", fakestock.Reply{Size: maxStockBody}, "the limit is maxStockBody, not one byte less"},
	}, newMenu, func(t *testing.T, tc replyCase, stock *Stock, rec *httptest.ResponseRecorder) {
		if served[tc.name] {
			if rec.Code != http.StatusOK {
				t.Errorf("got %d %s, want 200 (%s)", rec.Code, Body(rec), tc.fix)
			}
			return
		}
		requireAskedOnce(t, stock, rec)
		if rec.Code != http.StatusBadGateway {
			t.Fatalf("got %d %s, want 502 (%s)", rec.Code, Body(rec), tc.fix)
		}
		AssertJSONError(t, rec, "answer with writeError")
		switch words := ErrorWords(rec); {
		case words == http.StatusText(rec.Code):
			t.Errorf("got {\"error\": %q}, want what failed, in words: return a *stockError", words)
		case tc.reply.Status != 0 && !strings.Contains(words, strconv.Itoa(tc.reply.Status)):
			t.Errorf("got {\"error\": %q}, want the stock service's status, %d, in it", words, tc.reply.Status)
		}
	})
}

// ReadsAtMostTheLimit checks that the menu stops reading a body that is too
// large at maxStockBody bytes, whatever follows the JSON value.
func ReadsAtMostTheLimit(t *testing.T, newMenu func(stock *Stock) http.Handler, maxStockBody int) {
	eachReply(t, []replyCase{
		{"2 MiB of JSON", fakestock.Reply{Size: 2 * maxStockBody}, ""},
		{"JSON then 2 MiB of junk", fakestock.Reply{Body: `{"stock":[]}` + strings.Repeat("x", 2*maxStockBody)}, ""},
		{"JSON then 2 MiB of spaces", fakestock.Reply{Body: `{"stock":[]}` + strings.Repeat(" ", 2*maxStockBody)}, "io.LimitReader stops silently, so the spaces look like the end: http.MaxBytesReader"},
	}, newMenu, func(t *testing.T, tc replyCase, stock *Stock, rec *httptest.ResponseRecorder) {
		if rec.Code != http.StatusBadGateway {
			t.Fatalf("got %d %s, want 502 (%s)", rec.Code, Body(rec), cmp.Or(tc.fix, "too large, or more than one JSON value"))
		}
		// The fake's connection is an unbuffered pipe: it finishes writing
		// only if the menu reads it all. A body left open is task 3's business.
		for _, call := range stock.Calls() {
			if call.Outcome == fakestock.Completed {
				t.Errorf("got the whole body read (%v), want reading to stop at maxStockBody (never drain with io.Copy(io.Discard, …))", call)
			}
		}
	})
}

// ClosesTheBody checks that the stock's response body is closed on every
// path; maxStockBody is the menu's limit.
func ClosesTheBody(t *testing.T, newMenu func(stock *Stock) http.Handler, maxStockBody int) {
	eachReply(t, []replyCase{
		{"after 200", fakestock.Reply{}, "200 with the menu (close the body once it is read: defer)"},
		{"after 500", fakestock.Reply{Status: http.StatusInternalServerError}, ""},
		{"after malformed JSON", fakestock.Reply{Body: "not json"}, ""},
		{"after no stock list", fakestock.Reply{Body: `{"flavours":[]}`}, ""},
		{"after a null flavour", fakestock.Reply{Body: `{"stock":[null]}`}, ""},
		{"after too large", fakestock.Reply{Size: 2 * maxStockBody}, ""},
		{"after a hang-up", fakestock.Reply{Drop: true}, ""},
	}, newMenu, func(t *testing.T, tc replyCase, stock *Stock, rec *httptest.ResponseRecorder) {
		requireAskedOnce(t, stock, rec)
		if strings.Contains(rec.Body.String(), "PANIC") || tc.fix != "" && rec.Code != http.StatusOK {
			t.Fatalf("got %d %s, want %s", rec.Code, Body(rec), cmp.Or(tc.fix, "no panic (when Get fails, there is no body to close)"))
		}
		if stock.OpenBodies() != 0 {
			t.Errorf("menu answered %d: got the response body left open, want it closed (defer resp.Body.Close() right after a successful Get)", rec.Code)
		}
	})
}

// GuardsTheStockClient checks the client that main gives the menu: a
// redirect comes back as it is, a non-200 (502), and so do headers far
// larger than the stock service's. newMenu returns the menu under test.
func GuardsTheStockClient(t *testing.T, client *http.Client, newMenu func(client *http.Client, stockURL string) http.Handler) {
	elsewhere := fakestock.New()
	elsewhereURL, _ := fakestock.Loopback(t, elsewhere)
	for name, stock := range map[string]http.Handler{
		"redirect": http.RedirectHandler(elsewhereURL, http.StatusMovedPermanently),
		"1 MB of headers": http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("X-Padding", strings.Repeat("x", 1<<20))
			fakestock.New().ServeHTTP(w, r)
		}),
	} {
		t.Run(name, func(t *testing.T) {
			stockURL, _ := fakestock.Loopback(t, stock)
			t.Cleanup(client.CloseIdleConnections)
			rec := Get(newMenu(client, stockURL))
			if rec.Code != http.StatusBadGateway {
				t.Errorf("the stock service sent %s: got %d, want 502", name, rec.Code)
			}
			AssertJSONError(t, rec, "answer with writeError")
		})
	}
	if elsewhere.Started() != 0 {
		t.Errorf("got requests at the redirect's target, want none: follow no redirect")
	}
}

// requireAskedOnce stops the test unless the menu sent stock exactly one request.
func requireAskedOnce(t testing.TB, stock *Stock, rec *httptest.ResponseRecorder) {
	t.Helper()
	switch n := stock.Started(); {
	case n == 0:
		t.Fatalf("got %d %s without asking the stock service, want one request with the menu's client (http.Get cannot reach the fake)", rec.Code, Body(rec))
	case n > 1:
		t.Fatalf("got %d %s after %d requests to the stock service, want 1", rec.Code, Body(rec), n)
	}
}
