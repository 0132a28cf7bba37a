package main

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
)

// maxStockBody is the most the menu reads of the stock service's answer. The
// real stock list is a few hundred bytes; a megabyte is already absurd.
const maxStockBody = 1 << 20 // 1 MiB

// flavour is one line of the stock list, as the stock service sends it.
type flavour struct {
	ID    string `json:"id"`
	Name  string `json:"name"`
	Stock int    `json:"stock"`
}

// stockResponse is the part of GET /stock's answer the menu needs:
// {"stock": [...], "delay": 1234}. Unknown fields, like delay, are ignored.
type stockResponse struct {
	Stock []flavour `json:"stock"`
}

// menuItem is one line of the menu.
type menuItem struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Available bool   `json:"available"`
}

// menuResponse is the body of a 200 from GET /menu.
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

// handleMenu answers GET /menu with the menu built from the stock.
func (s *menuService) handleMenu(w http.ResponseWriter, r *http.Request) {
	stock, err := s.fetchStock()
	if err != nil {
		// Every failure of the stock service is a 502 Bad Gateway. RFC 9110
		// defines 502 as a gateway's answer to an invalid response from the
		// server behind it: no answer, garbage, too much. For an upstream that
		// answered 500 — a valid response — 502 is the gateways' convention:
		// the failure is behind us. A 500 of our own would say the bug is ours.
		// The log has the whole error; the caller, what failed in words.
		s.log.Warn("stock service failed", "err", err)
		writeError(w, http.StatusBadGateway, err)
		return
	}
	writeJSON(w, http.StatusOK, menuResponse{Menu: buildMenu(stock)})
}

// fetchStock asks the stock service for its stock list. It waits as long as
// the stock service takes: that is version 1.
func (s *menuService) fetchStock() ([]flavour, error) {
	resp, err := s.client.Get(s.stockURL)
	if err != nil {
		// Refused, reset, hung up before answering: the stock is unreachable.
		// (When Get fails there is no body to close.) The *url.Error names
		// the URL and the address: the cause, for the log.
		return nil, &stockError{"stock service unreachable", err}
	}
	// Close the body on every path from here on, success or not. An unclosed
	// body keeps its connection busy (it can never be reused) and, in the
	// stock service, a handler still writing to somebody who will never read.
	defer resp.Body.Close()

	if resp.StatusCode != http.StatusOK {
		return nil, &stockError{what: fmt.Sprintf("stock service answered %d", resp.StatusCode)}
	}
	// The real stock service says its body is JSON; anything else (an HTML
	// error page of a proxy in between) is not the stock, whatever it holds.
	// ParseMediaType, not ==: "application/json; charset=utf-8" is JSON too,
	// and a media type's case does not count.
	contentType := resp.Header.Get("Content-Type")
	if mt, _, _ := mime.ParseMediaType(contentType); mt != "application/json" {
		return nil, &stockError{"stock service sent no JSON", fmt.Errorf("Content-Type %q", contentType)}
	}

	// Read at most maxStockBody bytes. Without a bound, a broken or hostile
	// upstream can make us read (and hold in memory) gigabytes. io.LimitReader
	// would bound it too, but silently: the decoder would see a truncated
	// document, or take a small one followed by a megabyte of spaces for a
	// whole answer. http.MaxBytesReader fails with an *http.MaxBytesError
	// that says what happened.
	body := http.MaxBytesReader(nil, resp.Body, maxStockBody)
	var stock stockResponse
	if err := decodeOne(body, &stock); err != nil {
		if tooBig, ok := errors.AsType[*http.MaxBytesError](err); ok {
			return nil, &stockError{fmt.Sprintf("stock service sent more than %d bytes", tooBig.Limit), err}
		}
		return nil, &stockError{"stock service sent malformed JSON", err}
	}
	if stock.Stock == nil {
		return nil, &stockError{what: `stock service sent JSON without a "stock" list`}
	}
	for i, f := range stock.Stock {
		// A null in the list decodes, without an error, to a flavour with no
		// id and no name: json leaves a struct as it is for a null.
		if f.ID == "" || f.Name == "" {
			return nil, &stockError{"stock service sent a flavour without an id or a name", fmt.Errorf("stock[%d]", i)}
		}
	}
	return stock.Stock, nil
}

// decodeOne decodes into v the one JSON value r holds, and fails when
// anything but white space follows it: junk, or a second document.
func decodeOne(r io.Reader, v any) error {
	dec := json.NewDecoder(r)
	if err := dec.Decode(v); err != nil {
		return err
	}
	// Decode reads one value of a stream and stops there. Token reads what
	// follows, through the same limited reader, and returns io.EOF only at
	// the end of the body. Not dec.More(): it reports on the array or object
	// being parsed, and after a value it answers false before a stray } or ]
	// and on a read error, the limit's included. (json.Unmarshal rejects
	// trailing data itself, given the whole body: io.ReadAll, through the limit.)
	switch tok, err := dec.Token(); {
	case err == io.EOF:
		return nil
	case err != nil:
		return err
	default:
		return fmt.Errorf("a second JSON value after the first, starting with %v", tok)
	}
}

// buildMenu lists every flavour of the stock, in the stock's order, with
// whether it can be sold.
func buildMenu(stock []flavour) []menuItem {
	// make, not var: an empty stock must encode as "menu": [], not null.
	menu := make([]menuItem, 0, len(stock))
	for _, f := range stock {
		menu = append(menu, menuItem{ID: f.ID, Name: f.Name, Available: f.Stock > 0})
	}
	return menu
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
