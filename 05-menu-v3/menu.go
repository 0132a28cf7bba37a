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

// errStockTooSlow is the error of a call to the stock service that lost the
// race against the menu's timeout.
//
// TODO(task 4): make it the cause of the timeout's context
// (context.WithTimeoutCause), so that context.Cause says "our timeout" and
// nothing else does.
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
	breaker  breaker // fails fast while the stock service keeps timing out (task 6)
	counters         // served on GET /debug/vars (task 5)
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

// statusClientClosedRequest is the answer to a request whose context ended
// before the menu could answer it: 499 Client Closed Request. It is no
// standard status; nginx gave it this number to log clients who leave, and
// proxies and dashboards know it. The README says why we pick it.
//
//lint:ignore U1000 task 2 answers it
const statusClientClosedRequest = 499

// handleMenu answers GET /menu with the menu built from the stock.
func (s *menuService) handleMenu(w http.ResponseWriter, r *http.Request) {
	// TODO(task 5): count every request in s.requests, and each call that
	// is aborted, by its reason, in s.abortedByTimeout or s.abortedByClient
	// (then s.failedFast in task 6). See counters.go.
	// TODO(task 6): ask s.breaker.allow() before calling the stock service;
	// when it says to wait, answer 503 at once with a Retry-After header
	// (whole seconds, rounded up) and do not call it. Otherwise defer
	// done(noVerdict), as you defer a context's cancel, and tell done how
	// the call ended as soon as you know: answered (in time, even badly) or
	// timedOut (our timeout). Remove the //lint:ignore lines in breaker.go
	// and menu.go as you use what they mark.
	// TODO(task 2): hand the stock call the request's context, r.Context():
	// it ends when the menu's own client hangs up.
	stock, err := s.fetchStockWithin(s.timeout)
	switch {
	case errors.Is(err, errStockTooSlow):
		// 504 Gateway Timeout: we are a gateway, and the server behind us
		// did not answer in time. The talk's services answered 500, which
		// says "the bug is mine" and tells the caller nothing useful.
		s.log.Warn("stock service too slow", "timeout", s.timeout, "err", err)
		writeError(w, http.StatusGatewayTimeout, errStockTooSlow)
	// TODO(task 2): when the menu's client has left (r.Context() has ended),
	// answer statusClientClosedRequest, not an empty 200 and not a 502.
	// TODO(task 4): log that the client left, with s.log. Tell our timeout
	// from every other ending by identity: errors.Is and context.Cause,
	// never error messages, never ctx.Err() alone (a caller's own deadline
	// is a DeadlineExceeded too), and label only an error that is the
	// context's ending (a body too large is a 502, even found just after
	// our deadline). Keep the call's own error in the one fetchStockWithin
	// returns, for s.log: it names the URL and says what went wrong.
	case err != nil:
		// Every other failure of the stock service is a 502 Bad Gateway.
		s.log.Warn("stock service failed", "err", err)
		writeError(w, http.StatusBadGateway, err)
	default:
		writeJSON(w, http.StatusOK, menuResponse{Menu: buildMenu(stock)})
	}
}

// stockResult is what one call of fetchStock returned.
type stockResult struct {
	stock []flavour
	err   error
}

// fetchStockWithin returns what fetchStock returns if it returns within
// timeout, and errStockTooSlow if it does not: Go's Promise.race([fetch,
// timeout]). It does not stop the call that lost the race — nothing here
// can. The call goes on, and the stock service with it, for nobody.
//
// http.Client.Timeout would stop it: the client cancels its request when
// the time is up. That is better, and it is not this step: it belongs to
// the whole client rather than to one request, and it cannot also stop when
// our own caller hangs up. A context does both — step 05.
func (s *menuService) fetchStockWithin(timeout time.Duration) ([]flavour, error) {
	// TODO(task 1): cancel the call instead of racing it: take a
	// context.Context, derive one that ends after timeout
	// (context.WithTimeout, and defer its cancel), and pass it to
	// fetchStock; the goroutine, the channel, the timer and stockResult go
	// away. When the context ended the call — the error is its ending,
	// errors.Is(err, ctx.Err()), or its cause itself, which Go's HTTP/1
	// transport returns — and the ending was your deadline, return an error
	// that wraps errStockTooSlow beside the call's own. From task 2 on, ctx
	// also ends when its parent does, and errors.Is(err, ctx.Err()) holds
	// then too (a caller's own deadline is a DeadlineExceeded as well): if
	// ctx has ended and its parent has not, the deadline was yours; if both
	// have, either may have come first — task 4 labels yours with a cause.
	// TODO(task 3): the deadline must cover the whole exchange, reading the
	// body included: cancel only once fetchStock has read it. A read the
	// context cut off is no malformed JSON: say so, the URL in the cause.
	// Buffered, with room for the one result: when the timer wins, nobody
	// will ever receive from results, and the goroutine must still be able
	// to send and end. With an unbuffered channel it would block on the send
	// forever: one leaked goroutine (and its stack) per request that timed out.
	results := make(chan stockResult, 1)
	go func() {
		stock, err := s.fetchStock()
		results <- stockResult{stock, err}
	}()

	// time.NewTimer rather than time.After, so that we can Stop it once the
	// race is over: nobody will read its channel again. (Since Go 1.23 a
	// forgotten timer is garbage-collected anyway; Stop still says what we
	// mean, and it matters with time.AfterFunc, which would run for nobody.)
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case res := <-results:
		return res.stock, res.err
	case <-timer.C:
		return nil, fmt.Errorf("%w: no answer within %v", errStockTooSlow, timeout)
	}
}

// fetchStock asks the stock service for its stock list. It waits as long as
// the stock service takes; fetchStockWithin decides how long to wait for it.
func (s *menuService) fetchStock() ([]flavour, error) {
	// TODO(task 1): take a context.Context, build the request with
	// http.NewRequestWithContext and send it with s.client.Do: then the call
	// ends when the context does, on the wire too. (A call its context ended
	// was not "unreachable": say what failed, e.g. "stock service call failed".)
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
