package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"strconv"
	"time"
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

// errStockTooSlow is the cause of the context of a call to the stock service
// that ran out of time. Version 2 returned it when its timer won the race;
// version 3 hands it to context.WithTimeoutCause, and context.Cause gives it
// back: that is how the handler tells our timeout from every other ending.
var errStockTooSlow = &stockError{what: "stock service did not answer in time"}

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
	timeout  time.Duration // how long GET /menu waits for the stock service
	log      *slog.Logger
	breaker  breaker // fails fast while the stock service keeps timing out
	counters         // served on GET /debug/vars
}

// newMenuService returns a menu service that asks stockURL through client,
// and waits for it at most timeout. It logs nothing until given a logger.
func newMenuService(client *http.Client, stockURL string, timeout time.Duration) *menuService {
	s := &menuService{
		client:   client,
		stockURL: stockURL,
		timeout:  timeout,
		log:      slog.New(slog.DiscardHandler),
		breaker:  newBreaker(),
	}
	s.counters.publish()
	return s
}

// handler routes the service's endpoints.
func (s *menuService) handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /menu", s.handleMenu)
	mux.HandleFunc("GET /debug/vars", s.handleVars)
	return mux
}

// statusClientClosedRequest is nginx's 499 Client Closed Request: the answer
// to a request whose context ended first (why not silence, a 5xx or a 504:
// the README, task 2).
const statusClientClosedRequest = 499

// handleMenu answers GET /menu with the menu built from the stock.
func (s *menuService) handleMenu(w http.ResponseWriter, r *http.Request) {
	s.requests.Add(1)
	done, wait := s.breaker.allow()
	if wait > 0 {
		// Answer at once, without adding to the stock service's load.
		s.failedFast.Add(1)
		w.Header().Set("Retry-After", strconv.Itoa(wholeSeconds(wait)))
		writeError(w, http.StatusServiceUnavailable, &stockError{
			what: fmt.Sprintf("stock service keeps timing out: not asking it for another %v", wait)})
		return
	}
	// Deferred at once, as a context's cancel: every way out, a panic
	// included, reaches the breaker. A verdict given below comes first.
	defer done(noVerdict)

	// r.Context(), not context.Background(): it ends when our own client
	// hangs up, and then so does the call to the stock service.
	stock, err := s.fetchStockWithin(r.Context(), s.timeout)
	switch {
	case err == nil:
		done(answered)
		writeJSON(w, http.StatusOK, menuResponse{Menu: buildMenu(stock)})
	case errors.Is(err, errStockTooSlow):
		// Our deadline, and only ours: the cause says so, where
		// DeadlineExceeded would also match our caller's own deadline.
		s.abortedByTimeout.Add(1)
		done(timedOut)
		s.log.Warn("stock service too slow", "timeout", s.timeout, "err", err)
		writeError(w, http.StatusGatewayTimeout, errStockTooSlow)
	case r.Context().Err() != nil:
		// Our client left (or its own deadline passed): no fault of the
		// stock service, so no verdict (the deferred done says so).
		s.abortedByClient.Add(1)
		s.log.Info("client gone: cancelled the stock request",
			"cause", context.Cause(r.Context()), "err", err, "remote", r.RemoteAddr)
		writeError(w, statusClientClosedRequest, err)
	default:
		// Answered in time, and badly: an answer all the same.
		done(answered)
		s.log.Warn("stock service failed", "err", err)
		writeError(w, http.StatusBadGateway, err)
	}
}

// fetchStockWithin asks the stock service for its stock list and gives up —
// cancelling the call — after timeout, or as soon as ctx ends. When the
// context ended the call, the error it returns wraps the context's cause:
// errStockTooSlow for our timeout, ctx's own cause when our caller left.
func (s *menuService) fetchStockWithin(ctx context.Context, timeout time.Duration) ([]flavour, error) {
	ctx, cancel := context.WithTimeoutCause(ctx, timeout, errStockTooSlow)
	// Deferred, so it runs after fetchStock has read and closed the body:
	// cancelling any earlier would fail the read.
	defer cancel()

	stock, err := s.fetchStock(ctx)
	if err != nil && ctx.Err() != nil {
		// Go's HTTP/1 transport returns the cause when it cancels a
		// request, its HTTP/2 transport ctx.Err(): then add the cause.
		if cause := context.Cause(ctx); errors.Is(err, ctx.Err()) && !errors.Is(err, cause) {
			err = fmt.Errorf("%w: %w", cause, err)
		}
	}
	return stock, err
}

// fetchStock asks the stock service for its stock list, and stops as soon
// as ctx ends: the request carries the context all the way to the socket.
func (s *menuService) fetchStock(ctx context.Context) ([]flavour, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.stockURL, nil)
	if err != nil {
		return nil, fmt.Errorf("stock URL %q: %w", s.stockURL, err)
	}
	resp, err := s.client.Do(req)
	if err != nil {
		// Refused, reset, hung up before answering — or cancelled: with a
		// context, "unreachable" would say too much. The *url.Error names
		// the URL and the reason, for the log. (When Do fails there is no
		// body to close.)
		return nil, &stockError{"stock service call failed", err}
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

	// Read at most maxStockBody bytes (see step 02), under ctx too.
	body := http.MaxBytesReader(nil, resp.Body, maxStockBody)
	var stock stockResponse
	if err := decodeOne(body, &stock); err != nil {
		if tooBig, ok := errors.AsType[*http.MaxBytesError](err); ok {
			return nil, &stockError{fmt.Sprintf("stock service sent more than %d bytes", tooBig.Limit), err}
		}
		if ctx.Err() != nil {
			// Not malformed: cut off halfway, when the context ended.
			return nil, &stockError{"stock list cut off", fmt.Errorf("reading it from %s: %w", s.stockURL, err)}
		}
		return nil, &stockError{"stock service sent malformed JSON", err}
	}
	if stock.Stock == nil {
		return nil, &stockError{what: `stock service sent JSON without a "stock" list`}
	}
	for i, f := range stock.Stock {
		if f.ID == "" || f.Name == "" { // a null among them too (see step 02)
			return nil, &stockError{"stock service sent a flavour without an id or a name", fmt.Errorf("stock[%d]", i)}
		}
	}
	return stock.Stock, nil
}

// decodeOne decodes into v the one JSON value r holds, and fails when
// anything but white space follows it: junk, or a second document. Why
// Token and not More: see step 02.
func decodeOne(r io.Reader, v any) error {
	dec := json.NewDecoder(r)
	if err := dec.Decode(v); err != nil {
		return err
	}
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
