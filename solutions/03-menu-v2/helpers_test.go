package main

// Test helpers: the fake stock service as the menu sees it, and ways to call
// the menu and describe what it did.

import (
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/icecreamcorp/go-cancellation-workshop/internal/fakestock"
	"github.com/icecreamcorp/go-cancellation-workshop/internal/inproc"
)

// testStockURL is the stock URL the menu is given in tests. The in-process
// transport ignores the host: every request goes to the fake.
const testStockURL = "http://stock.test/stock"

// testStock is a fake stock service reached through an in-process transport,
// so that tests run inside a synctest bubble, in virtual time.
type testStock struct {
	*fakestock.Service
	transport *inproc.Transport

	mu     sync.Mutex
	bodies []io.Closer
}

// newTestStock returns a fake stock service that plays replies, for a test
// inside a synctest bubble.
//
// When the test ends, even by failing half-way, it lets a minute of virtual
// time pass, so that the fake and the menu finish whatever they were doing,
// then closes any response body the menu left open (a fake still writing a
// large body to nobody would block forever). A synctest bubble whose test
// returns while its goroutines wait would crash the test binary instead of
// letting the test report what went wrong.
func newTestStock(t testing.TB, replies ...fakestock.Reply) *testStock {
	t.Helper()
	fake := fakestock.New(replies...)
	s := serveTestStock(t, fake, fake)
	t.Cleanup(settle) // cleanups run last-in, first-out: settle first
	return s
}

// settle lets a minute of virtual time pass, and everything come to rest.
func settle() {
	time.Sleep(time.Minute)
	synctest.Wait()
}

// serveTestStock returns a fake stock service that the menu reaches through h,
// a handler that wraps fake (see holdUntil), in real or virtual time. When
// the test ends, it closes any response body the menu left open.
func serveTestStock(t testing.TB, fake *fakestock.Service, h http.Handler) *testStock {
	t.Helper()
	s := &testStock{Service: fake, transport: inproc.New(h)}
	t.Cleanup(s.closeBodies)
	return s
}

// closeBodies closes every response body the fake handed out.
func (s *testStock) closeBodies() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, b := range s.bodies {
		b.Close() // closing twice is harmless
	}
}

// client is the http.Client to give the menu.
func (s *testStock) client() *http.Client { return &http.Client{Transport: s} }

// RoundTrip serves req with the fake and remembers the body it hands out.
func (s *testStock) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := s.transport.RoundTrip(req)
	if err == nil {
		s.mu.Lock()
		s.bodies = append(s.bodies, resp.Body)
		s.mu.Unlock()
	}
	return resp, err
}

// openBodies is how many response bodies the menu received and did not close.
func (s *testStock) openBodies() int { return s.transport.OpenBodies() }

// holdUntil holds every request at the door until release is closed (or the
// caller leaves), then lets h answer it. A test can then let the menu give
// up first whatever the machine's speed, and only then let the stock answer.
func holdUntil(release <-chan struct{}, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
		h.ServeHTTP(w, r)
	})
}

// getMenu serves one GET /menu with h and returns what it answered.
func getMenu(h http.Handler) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/menu", nil))
	return rec
}

// pendingMenu is a GET /menu served on its own goroutine, so that the test can
// look at it, in virtual time, while it is still running.
type pendingMenu struct {
	rec   *httptest.ResponseRecorder
	start time.Time
	took  time.Duration // set before done is closed
	done  chan struct{}
}

// startMenu starts serving one GET /menu with h.
func startMenu(h http.Handler) *pendingMenu {
	p := &pendingMenu{rec: httptest.NewRecorder(), start: time.Now(), done: make(chan struct{})}
	go func() {
		defer close(p.done)
		h.ServeHTTP(p.rec, httptest.NewRequest(http.MethodGet, "/menu", nil))
		p.took = time.Since(p.start)
	}()
	return p
}

// answered reports whether the menu has answered.
func (p *pendingMenu) answered() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// String says what the menu did so far: "menu answered 504 after 1s: {…}".
func (p *pendingMenu) String() string {
	if !p.answered() {
		return fmt.Sprintf("menu had not answered after %v", time.Since(p.start))
	}
	return fmt.Sprintf("menu answered %d after %v: %s", p.rec.Code, p.took, answerBody(p.rec))
}

// wantMenuJSON is the menu built from the stock service's real stock.
func wantMenuJSON(t testing.TB) string {
	t.Helper()
	type item struct {
		ID        string `json:"id"`
		Name      string `json:"name"`
		Available bool   `json:"available"`
	}
	var menu []item
	for _, f := range fakestock.Flavours {
		menu = append(menu, item{f.ID, f.Name, f.Stock > 0})
	}
	b, err := json.Marshal(map[string]any{"menu": menu})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// assertJSONError checks that rec is a JSON {"error": "…"} answer.
func assertJSONError(t testing.TB, rec *httptest.ResponseRecorder, task string) {
	t.Helper()
	assert.Equal(t, "application/json", mediaType(rec),
		"menu answered %d with Content-Type %q; want application/json (%s)", rec.Code, rec.Header().Get("Content-Type"), task)
	var body struct {
		Error *string `json:"error"`
	}
	err := json.Unmarshal(rec.Body.Bytes(), &body)
	if assert.NoError(t, err, "menu answered %d with a body that is not JSON: %q; want {\"error\": \"…\"} (%s)", rec.Code, answerBody(rec), task) {
		assert.NotEmpty(t, body.Error, "menu answered %d with %s; want {\"error\": \"what went wrong\"} (%s)", rec.Code, answerBody(rec), task)
	}
}

// mediaType is the media type of rec's Content-Type, without parameters.
func mediaType(rec *httptest.ResponseRecorder) string {
	mt, _, _ := mime.ParseMediaType(rec.Header().Get("Content-Type"))
	return mt
}

// answerBody is the menu's answer for messages: without its final newline,
// and cut short if it is long.
func answerBody(rec *httptest.ResponseRecorder) string {
	s := strings.TrimSpace(rec.Body.String())
	if len(s) > 120 {
		s = s[:120] + "…"
	}
	return s
}
