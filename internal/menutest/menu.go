package menutest

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/icecreamcorp/go-cancellation-workshop/internal/fakestock"
	"github.com/icecreamcorp/go-cancellation-workshop/internal/leakcheck"
	"github.com/icecreamcorp/go-cancellation-workshop/internal/menutest/cpu"
)

// Get serves one GET /menu with h and returns what it answered.
func Get(h http.Handler) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	serve(h, rec, httptest.NewRequest(http.MethodGet, "/menu", nil))
	return rec
}

// serve serves req with h into rec; a panic, recovered as an http.Server
// would, writes "PANIC at menu.go:81: …" into the body, for the test's message.
func serve(h http.Handler, rec *httptest.ResponseRecorder, req *http.Request) {
	ctx, cancel := context.WithCancel(req.Context())
	defer cancel() // as net/http cancels a request's context once its handler returns
	defer func() {
		p := recover()
		if p == nil || p == http.ErrAbortHandler {
			return
		}
		if !rec.Flushed && rec.Body.Len() == 0 {
			rec.Code = http.StatusInternalServerError
		}
		fmt.Fprintf(rec.Body, "PANIC at %s: %v", panicSite(), p)
	}()
	h.ServeHTTP(rec, req.WithContext(ctx))
}

// panicSite is the file:line, in the folder the tests run in, where the panic
// being recovered began.
func panicSite() string {
	here, _ := os.Getwd()
	pc := make([]uintptr, 64)
	for frames, more := runtime.CallersFrames(pc[:runtime.Callers(3, pc)]), true; more; {
		var f runtime.Frame
		if f, more = frames.Next(); filepath.Dir(f.File) == here {
			return fmt.Sprintf("%s:%d", filepath.Base(f.File), f.Line)
		}
	}
	return "an unknown place (run go vet, and go test -v)"
}

// Pending is a GET /menu served on its own goroutine.
type Pending struct {
	Rec   *httptest.ResponseRecorder
	Start time.Time
	Took  time.Duration // set before done is closed
	done  chan struct{}
}

// Start starts serving one GET /menu with h.
func Start(h http.Handler) *Pending {
	return StartRequest(h, httptest.NewRequest(http.MethodGet, "/menu", nil))
}

// StartRequest starts serving req with h.
func StartRequest(h http.Handler, req *http.Request) *Pending {
	p := &Pending{Rec: httptest.NewRecorder(), Start: time.Now(), done: make(chan struct{})}
	go func() {
		defer close(p.done)
		serve(h, p.Rec, req)
		p.Took = time.Since(p.Start)
	}()
	return p
}

// Answered reports whether the menu's handler has returned.
func (p *Pending) Answered() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// String says what the menu did so far: "504 after 1s: {…}", or "no answer after 1s".
func (p *Pending) String() string {
	if !p.Answered() {
		return fmt.Sprintf("no answer after %v", time.Since(p.Start))
	}
	return fmt.Sprintf("%d after %v: %s", p.Rec.Code, p.Took, Body(p.Rec))
}

// MenuJSON is the menu built from fakestock.Flavours.
const MenuJSON = `{"menu":[` +
	`{"id":"cf93d53f-7f60-4c9d-a543-ef217a09269b","name":"Cookies 'n' Cream","available":true},` +
	`{"id":"41373bb6-e6fb-4606-8f01-1cd24e228939","name":"Neopolitan","available":false},` +
	`{"id":"8e884a8d-ae04-4518-80b7-377ee5bcecc6","name":"Pistachio","available":true}]}`

// AssertJSONError checks that rec is a JSON {"error": "…"} answer that
// names no address: the stock URL, its host and ports are for the log.
func AssertJSONError(t testing.TB, rec *httptest.ResponseRecorder, fix string) {
	t.Helper()
	var body struct {
		Error *string `json:"error"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &body); MediaType(rec) != "application/json" || err != nil || body.Error == nil || *body.Error == "" {
		t.Errorf("menu answered %d: got Content-Type %q, body %s; want JSON {\"error\": \"what went wrong\"} (%s)",
			rec.Code, rec.Result().Header.Get("Content-Type"), Body(rec), fix)
		return
	}
	for _, addr := range []string{"://", "stock.test", "127.0.0.1", "localhost", "[::1]"} {
		if strings.Contains(*body.Error, addr) {
			t.Errorf("menu answered %d: got %q in the error, want no address: a *stockError's words, the cause in s.log", rec.Code, addr)
			return
		}
	}
}

// ErrorWords is the "error" of rec's JSON body, "" if it has none.
func ErrorWords(rec *httptest.ResponseRecorder) string {
	var body struct {
		Error string `json:"error"`
	}
	json.Unmarshal(rec.Body.Bytes(), &body) //nolint:errcheck // no JSON, no words
	return body.Error
}

// CheckAnswer checks that rec answered want: a 200 with MenuJSON, or another status with a JSON error.
func CheckAnswer(t testing.TB, rec *httptest.ResponseRecorder, want int) {
	t.Helper()
	switch {
	case rec.Code != want:
		t.Errorf("got %d %s, want %d", rec.Code, Body(rec), want)
	case want != http.StatusOK:
		AssertJSONError(t, rec, "answer with writeError")
	case !EqualJSON(rec.Body.String(), MenuJSON):
		t.Errorf("got %s, want the menu %s", Body(rec), MenuJSON)
	}
}

// EqualJSON reports whether a and b hold the same JSON value.
func EqualJSON(a, b string) bool {
	var x, y any
	return json.Unmarshal([]byte(a), &x) == nil && json.Unmarshal([]byte(b), &y) == nil && reflect.DeepEqual(x, y)
}

// MediaType is the media type of rec's Content-Type, without parameters.
func MediaType(rec *httptest.ResponseRecorder) string {
	mt, _, _ := mime.ParseMediaType(rec.Result().Header.Get("Content-Type"))
	return mt
}

// Body is the menu's answer for messages, trimmed, and cut in the middle
// when long: an error's end ("…: context deadline exceeded") says most.
func Body(rec *httptest.ResponseRecorder) string {
	s := strings.TrimSpace(rec.Body.String())
	if len(s) > 400 { // a whole menu fits
		s = s[:200] + "…" + s[len(s)-200:]
	}
	return s
}

// Wait reports whether the menu's handler returned within d, for tests on
// real sockets (in a bubble: sleep, synctest.Wait, then Answered).
func (p *Pending) Wait(d time.Duration) bool {
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-p.done:
		return true
	case <-timer.C:
		return false
	}
}

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
