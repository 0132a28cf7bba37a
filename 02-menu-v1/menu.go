package main

import (
	"cmp"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
)

// maxStockBody is the most the menu reads of the stock service's answer. The
// real stock list is a few hundred bytes; a megabyte is already absurd.
const maxStockBody = 1 << 20 // 1 MiB

// flavour is one line of the stock list, as the stock service sends it.
//
//lint:ignore U1000 task 1 decodes the stock into it
type flavour struct {
	ID    string `json:"id"`
	Name  string `json:"name"`
	Stock int    `json:"stock"`
}

// stockResponse is the part of GET /stock's answer the menu needs:
// {"stock": [...], "delay": 1234}. Unknown fields, like delay, are ignored.
//
//lint:ignore U1000 task 1 decodes the stock into it
type stockResponse struct {
	Stock []flavour `json:"stock"`
}

// menuItem is one line of the menu.
//
//lint:ignore U1000 task 1 builds the menu with it
type menuItem struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Available bool   `json:"available"`
}

// menuResponse is the body of a 200 from GET /menu.
//
//lint:ignore U1000 task 1 answers with it
type menuResponse struct {
	Menu []menuItem `json:"menu"`
}

// errorBody is the body of every answer that is not a 200.
type errorBody struct {
	Error string `json:"error"`
}

// stockError is a failure of the stock service, in two parts: what failed,
// in words for the menu's caller, and the cause, for the log alone: it names
// the stock URL, hosts and ports, which are nobody's business outside.
type stockError struct {
	what  string
	cause error // may be nil
}

func (e *stockError) Error() string {
	if e.cause == nil {
		return e.what
	}
	return e.what + ": " + e.cause.Error()
}

func (e *stockError) Unwrap() error { return e.cause }

// menuService is the Menu Service. It is given its HTTP client rather than
// reaching for http.DefaultClient, so that main can tune it and tests can
// hand it a client that talks to a fake stock service.
type menuService struct {
	client   *http.Client
	stockURL string
	log      *slog.Logger
}

// newMenuService returns a menu service that asks stockURL through client.
// It logs nothing until given a logger.
func newMenuService(client *http.Client, stockURL string) *menuService {
	return &menuService{client: client, stockURL: stockURL, log: slog.New(slog.DiscardHandler)}
}

// handler routes the service's endpoint.
func (s *menuService) handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /menu", s.handleMenu)
	return mux
}

// errNotImplemented is what the stubs below answer until you write them: a
// *stockError, so that writeError says its words.
var errNotImplemented = &stockError{what: "not implemented yet: see the README's tasks"}

// handleMenu answers GET /menu with the menu built from the stock.
func (s *menuService) handleMenu(w http.ResponseWriter, r *http.Request) {
	// TODO(task 1): get the stock list with s.fetchStock and answer 200 with
	// menuResponse{Menu: buildMenu(stock)}, using writeJSON.
	// TODO(task 2): when fetchStock fails, log the error with s.log.Warn and
	// answer 502 Bad Gateway with writeError: it says only the words of the
	// *stockError, and the log keeps the rest.
	writeError(w, http.StatusNotImplemented, errNotImplemented)
}

// fetchStock asks the stock service for its stock list.
//
//lint:ignore U1000 task 1 calls it from handleMenu
func (s *menuService) fetchStock() ([]flavour, error) {
	// TODO(task 1): GET s.stockURL with s.client (http.Client.Get) and decode
	// the JSON body into a stockResponse (json.NewDecoder(…).Decode).
	// TODO(task 2): return a *stockError for each failure of the README's
	// task 2 — what failed, in words, and the cause: the call, a status other
	// than 200, a Content-Type that is not application/json
	// (mime.ParseMediaType), a body that is not the one JSON value we expect
	// (json.Decoder's Decode, then Token), a body over maxStockBody
	// (http.MaxBytesReader).
	// TODO(task 3): close the response body on every path once Get has
	// succeeded (resp.Body.Close, with defer).
	return nil, errNotImplemented
}

// buildMenu lists every flavour of the stock, in the stock's order, with
// whether it can be sold.
//
//lint:ignore U1000 task 1 calls it from handleMenu
func buildMenu(stock []flavour) []menuItem {
	// TODO(task 1): one menuItem per flavour, in the same order; a flavour is
	// available when its stock is above zero. An empty stock is an empty
	// menu, which must encode as [], not null.
	return nil
}

// writeJSON answers with status and v encoded as JSON.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	// After WriteHeader the status is sent; an encoding error (a client that
	// left mid-write) cannot change it any more, so there is nothing to do.
	_ = json.NewEncoder(w).Encode(v)
}

// writeError answers with status and {"error": …}: the words of the first
// *stockError in err's chain, never err's message, whose details (the stock
// URL, addresses, ports) are for the log alone. Any other error is said with
// the status's text.
func writeError(w http.ResponseWriter, status int, err error) {
	words := cmp.Or(http.StatusText(status), "request failed")
	if e, ok := errors.AsType[*stockError](err); ok {
		words = e.what
	}
	writeJSON(w, status, errorBody{Error: words})
}
