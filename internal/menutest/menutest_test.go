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
	"testing/fstest"
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

// A Pending says how long the menu took and what it answered, to the
// nanosecond; a body the menu leaves open is closed when the test ends.
func TestPending(t *testing.T) {
	leakcheck.Check(t)
	var stock *Stock
	t.Run("menu", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			stock = NewStock(t, fakestock.Reply{Delay: 2 * time.Second}, fakestock.Reply{})
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
			if _, err := stock.Client().Get(StockURL); err != nil || stock.OpenBodies() != 1 {
				t.Errorf("a body left open: got %v, %d bodies open; want 1", err, stock.OpenBodies())
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
	for _, tc := range []struct {
		status           int
		contentType, got string
		want             int
		fail             bool
	}{
		{200, "application/json", MenuJSON, 200, false},
		{502, "application/json; charset=utf-8", `{"error":"stock unreachable"}`, 502, false},
		{500, "application/json", `{"error":"oops"}`, 502, true},
		{200, "application/json", `{"menu":[]}`, 200, true},
		{502, "text/plain", `{"error":"stock unreachable"}`, 502, true},
		{502, "application/json", `{"error":""}`, 502, true},
		{502, "application/json", `{"error":"stock service unreachable: Get \"http://stock.test/stock\": EOF"}`, 502, true},
		{502, "application/json", `{"error":"read tcp 127.0.0.1:50522->127.0.0.1:4000: reset"}`, 502, true},
	} {
		rec, r := httptest.NewRecorder(), &recorder{TB: t}
		rec.Header().Set("Content-Type", tc.contentType)
		rec.WriteHeader(tc.status)
		io.WriteString(rec, tc.got+"\n")
		if CheckAnswer(r, rec, tc.want); len(r.msgs) > 0 != tc.fail {
			t.Errorf("%d %s %s, want %d: got failures %q, want failed %v", tc.status, tc.contentType, tc.got, tc.want, r.msgs, tc.fail)
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
	leakcheck.Check(t)
	stockURL, _ := fakestock.Loopback(t, fakestock.New())
	t.Cleanup(http.DefaultTransport.(*http.Transport).CloseIdleConnections)
	if resp, err := http.Get(stockURL); err != nil { // 127.0.0.1
		t.Errorf("GET from 127.0.0.1 through the guard: %v", err)
	} else {
		resp.Body.Close()
	}
}

// The check itself: it must catch the wrong answer, and let right ones through.
func TestDroppedSends(t *testing.T) {
	const drop = "select {\n\tcase results <- 1:\n\tdefault:\n\t}\n"
	for _, tc := range []struct {
		name, src string
		dropped   int
	}{
		{"make(chan T)", "results := make(chan int)\n" + drop, 1},
		{"make(chan T, 0)", "var results = make(chan int, 0)\n" + drop, 1},
		{"in another function", "go send(make(chan int))\n}\n\nfunc send(results chan int) {\n" + drop, 1},
		{"room for one", "results := make(chan int, 1)\n" + drop, 0},
		{"size not a literal", "results := make(chan int, n)\n" + drop, 0},
		{"plain send", "results := make(chan int)\ngo func() { results <- 1 }()\n", 0},
		{"no default case", "results := make(chan int)\nselect {\ncase results <- 1:\ncase <-results:\n}\n", 0},
		{"receive with a default", "results := make(chan int)\nselect {\ncase <-results:\ndefault:\n}\n", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := "package p\n\nfunc fetch(n int) {\n" + tc.src + "}\n"
			fsys := fstest.MapFS{"fetch.go": {Data: []byte(src)}, "fetch_test.go": {Data: []byte("package p\n\nvar x = make(chan int)\n")}}
			if got, err := DroppedSends(fsys); err != nil || len(got) != tc.dropped {
				t.Errorf("got %d sends that can drop their value (%v), want %d, in:\n%s", len(got), err, tc.dropped, src)
			}
		})
	}
}
