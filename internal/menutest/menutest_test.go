package menutest

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"testing/synctest"
	"time"

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

// slowMenu stands in for a menu service: it asks the stock through client
// and answers with the stock's body, or 502.
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
		time.Sleep(2*time.Second - 1)
		synctest.Wait()
		if got := menu.String(); menu.Answered() || got != "no answer after 1.999999999s" {
			t.Errorf("1ns before the stock answers: got %q", got)
		}
		time.Sleep(time.Nanosecond)
		synctest.Wait()
		if got := menu.String(); !menu.Answered() || menu.Took != 2*time.Second || !strings.HasPrefix(got, "200 after 2s: {") || stock.OpenBodies() != 0 {
			t.Errorf("once the stock answers: got %q, %d bodies open", got, stock.OpenBodies())
		}
	})
}

func TestClosesBodiesLeftOpen(t *testing.T) {
	leakcheck.Check(t)
	var stock *Stock
	t.Run("menu leaves it open", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			stock = NewStock(t, fakestock.Reply{})
			if _, err := stock.Client().Get(StockURL); err != nil || stock.OpenBodies() != 1 {
				t.Errorf("got %v, %d bodies open; want 1", err, stock.OpenBodies())
			}
		})
	})
	if stock.OpenBodies() != 0 {
		t.Errorf("got a body still open after the test, want NewStock's cleanup to close it")
	}
}

// recorder is a testing.TB that keeps failures instead of reporting them.
type recorder struct {
	testing.TB
	msgs []string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.msgs = append(r.msgs, fmt.Sprintf(format, args...))
}

func TestCheckAnswer(t *testing.T) {
	answer := func(status int, contentType, body string) *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		rec.Header().Set("Content-Type", contentType)
		rec.WriteHeader(status)
		io.WriteString(rec, body+"\n")
		return rec
	}
	for _, tc := range []struct {
		name string
		rec  *httptest.ResponseRecorder
		want int
		fail bool
	}{
		{"menu", answer(200, "application/json", MenuJSON), 200, false},
		{"JSON error", answer(502, "application/json; charset=utf-8", `{"error":"stock unreachable"}`), 502, false},
		{"wrong status", answer(500, "application/json", `{"error":"oops"}`), 502, true},
		{"wrong menu", answer(200, "application/json", `{"menu":[]}`), 200, true},
		{"text error", answer(502, "text/plain", `{"error":"stock unreachable"}`), 502, true},
		{"empty error", answer(502, "application/json", `{"error":""}`), 502, true},
	} {
		r := &recorder{TB: t}
		CheckAnswer(r, tc.rec, tc.want)
		if failed := len(r.msgs) > 0; failed != tc.fail {
			t.Errorf("%s: got failed %v (%q), want %v", tc.name, failed, r.msgs, tc.fail)
		}
	}
}

func TestGetSurvivesAPanic(t *testing.T) {
	rec := Get(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {
		var stock map[string]int
		//lint:ignore SA5000 the panic is the point of this test
		stock["pistachio"]++ // assignment to entry in nil map
	}))
	if body := rec.Body.String(); rec.Code != 500 || !strings.Contains(body, "PANIC at menutest_test.go:") || !strings.Contains(body, "nil map") {
		t.Errorf("got %d %s, want 500 and where it panicked", rec.Code, body)
	}
}

func TestMenuJSONIsTheMenuOfTheStock(t *testing.T) {
	var menu []map[string]any
	for _, f := range fakestock.Flavours {
		menu = append(menu, map[string]any{"id": f.ID, "name": f.Name, "available": f.Stock > 0})
	}
	if want, _ := json.Marshal(map[string]any{"menu": menu}); !EqualJSON(MenuJSON, string(want)) {
		t.Errorf("MenuJSON: got %s, want %s", MenuJSON, want)
	}
}

// The guard of http.DefaultTransport: only Main sets it; it refuses .test
// hosts at once, whatever the client, and lets other hosts through.
func TestGuard(t *testing.T) {
	dialer := func(tr http.RoundTripper) string {
		return runtime.FuncForPC(reflect.ValueOf(tr.(*http.Transport).DialContext).Pointer()).Name()
	}
	if strings.Contains(dialer(atImport), "menutest") || !strings.Contains(dialer(http.DefaultTransport), "guardDefaultTransport") {
		t.Errorf("got DefaultTransport dialling with %s at import, %s under Main; want it guarded by Main only", dialer(atImport), dialer(http.DefaultTransport))
	}
	before := http.DefaultTransport
	if restore := guardDefaultTransport(); http.DefaultTransport == before {
		t.Errorf("guardDefaultTransport left http.DefaultTransport as it was")
	} else if restore(); http.DefaultTransport != before {
		t.Errorf("restore did not put back the transport it replaced")
	}
	for name, client := range map[string]*http.Client{
		"DefaultClient":  http.DefaultClient,
		"ClientOfItsOwn": {},
		"CloneOfDefault": {Transport: http.DefaultTransport.(*http.Transport).Clone()}, // as main.go's newStockClient
	} {
		synctest.Test(t, func(t *testing.T) {
			if _, err := client.Get(StockURL); !errors.Is(err, ErrNotTheGivenClient) {
				t.Errorf("%s: GET %s: got %v, want ErrNotTheGivenClient at once, with no DNS lookup", name, StockURL, err)
			}
		})
	}
	synctest.Test(t, func(t *testing.T) {
		stock := NewStock(t, fakestock.Reply{})
		if rec := Get(slowMenu(http.DefaultClient)); rec.Code != http.StatusBadGateway || stock.Started() != 0 {
			t.Errorf("a menu past its client: got %d and %d stock requests, want 502 and none", rec.Code, stock.Started())
		}
	})
	leakcheck.Check(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "hello") }))
	t.Cleanup(srv.Close)
	t.Cleanup(http.DefaultTransport.(*http.Transport).CloseIdleConnections)
	if resp, err := http.Get(srv.URL); err != nil { // 127.0.0.1
		t.Errorf("GET from 127.0.0.1 through the guard: %v", err)
	} else {
		resp.Body.Close()
	}
}
