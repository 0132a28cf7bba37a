package load

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// version is one configuration of the menu the lab measures.
type version struct {
	Name  string // as -versions spells it
	Title string // what it is, in a few words
	Dir   string // the step's folder, under solutions/ unless -own
	H2C   bool   // menu and stock service talk HTTP/2 without TLS
	Talk  string // the talk's figures to show beside it, if any
	args  func(timeout time.Duration) []string
}

var versions = []version{
	{Name: "v1", Title: "menu v1: waits for the stock service", Dir: "02-menu-v1", Talk: "v1",
		args: func(time.Duration) []string { return nil }},
	{Name: "v2", Title: "menu v2: answers 504 at the timeout, leaves the stock call running", Dir: "03-menu-v2", Talk: "v2",
		args: func(t time.Duration) []string { return []string{"-timeout", t.String()} }},
	{Name: "v3", Title: "menu v3: cancels the stock call at the timeout (-fail-after 0)", Dir: "05-menu-v3", Talk: "v3",
		args: func(t time.Duration) []string { return []string{"-timeout", t.String(), "-fail-after", "0"} }},
	{Name: "v3-fail-fast", Title: "menu v3, failing fast: 503 at once after 5 timeouts in a row", Dir: "05-menu-v3",
		// The cool-down scales with the timeout (1s × -scale), as every other duration does.
		args: func(t time.Duration) []string {
			return []string{"-timeout", t.String(), "-fail-after", "5", "-cool-down", t.String()}
		}},
	{Name: "v3-h2c", Title: "menu v3 over HTTP/2 without TLS: a cancel is a RST_STREAM frame", Dir: "05-menu-v3", H2C: true,
		args: func(t time.Duration) []string { return []string{"-timeout", t.String(), "-fail-after", "0", "-h2c"} }},
}

const stockDir = "01-stock-service"

// Setup is how a run of the lab is configured.
type Setup struct {
	Scale    float64       `json:"scale"`
	Timeout  time.Duration `json:"timeout_ns"`   // the menus' -timeout: 1s × scale
	MaxDelay time.Duration `json:"max_delay_ns"` // the stock service's -max-delay: 10s × scale
	Duration time.Duration `json:"duration_ns"`  // load per version
	Conns    int           `json:"connections"`
	Own      bool          `json:"own"` // the learner's steps rather than the solutions
	// Unfinished says, with -own, how far each step whose tasks do not all
	// pass is ("0 of 3 tasks — measuring your starter"), by folder.
	Unfinished map[string]string `json:"unfinished_steps,omitempty"`
	Versions   []string          `json:"versions"`
	CPUs       int               `json:"cpus"`
	GoVer      string            `json:"go"`
}

// Result is every figure the lab measured for one version.
type Result struct {
	Version string `json:"version"`
	Title   string `json:"title"`
	// Unfinished names the steps it was built from whose tasks do not all
	// pass (-own), and how far each is: its goals are not judged.
	Unfinished []string `json:"unfinished,omitempty"`

	// What the load generator saw: the talk's table.
	Latency   Latency        `json:"latency"`
	ReqPerSec float64        `json:"req_per_s"`
	Requests  int            `json:"requests"`
	OK        int            `json:"2xx"`
	NotOK     int            `json:"non_2xx"`
	Errors    int            `json:"errors"` // no response at all
	Statuses  map[string]int `json:"statuses"`
	Elapsed   float64        `json:"elapsed_s"`
	Capped    bool           `json:"capped,omitempty"`
	Talk      *TalkFigures   `json:"talk,omitempty"`

	// What happened behind the menu.
	StockStarted   int64    `json:"stock_started"`
	StockCompleted int64    `json:"stock_completed"`
	StockAbandoned int64    `json:"stock_abandoned"`
	StockLeftOver  int64    `json:"stock_in_flight_at_end"` // still running when the lab stopped waiting
	DrainTimedOut  bool     `json:"drain_timed_out,omitempty"`
	Notes          []string `json:"notes,omitempty"` // what could not be measured, and why
	Calls          int      `json:"upstream_calls"`
	Waste          Waste    `json:"waste"`
	PeakInFlight   int64    `json:"peak_stock_in_flight"`
	Conns          int      `json:"upstream_connections"`
	ConnsPer1000   float64  `json:"upstream_connections_per_1000_calls"`
	ConnsPer1000C  float64  `json:"upstream_connections_per_1000_cancelled_calls"`
	PeakGoroutines int      `json:"peak_menu_goroutines"`
	LoadEnd        float64  `json:"load_end_s"` // when the load generator stopped, on the Samples' clock

	Samples []Sample `json:"samples"`
}

// stockVars is the part of the stock service's GET /debug/vars the lab reads.
type stockVars struct {
	Stock struct {
		Started   int64 `json:"started"`
		Completed int64 `json:"completed"`
		Abandoned int64 `json:"abandoned"`
		InFlight  int64 `json:"in_flight"`
	} `json:"stock"`
}

func readStockVars(ctx context.Context, client *http.Client, addr string) (stockVars, error) {
	var v stockVars
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+"/debug/vars", nil)
	if err != nil {
		return v, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return v, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return v, fmt.Errorf("GET /debug/vars from the stock service: %s", resp.Status)
	}
	return v, json.NewDecoder(resp.Body).Decode(&v)
}

// progress is what the lab shows while a version runs.
type progress func(version, phase string, elapsed, of time.Duration, requests, inFlight int64)

// measure runs one version: a stock service, the lab's proxy, the menu, the
// load; then waits (at most max-delay and a second) for the stock service
// to finish what it still holds, and stops everything.
func measure(ctx context.Context, s Setup, v version, bins map[string]string, show progress) (*Result, error) {
	origin := time.Now()
	stockArgs := []string{"-max-delay", s.MaxDelay.String()}
	if v.H2C {
		stockArgs = append(stockArgs, "-h2c")
	}
	stock, err := startService(ctx, "the stock service", bins[stockDir], stockArgs...)
	if err != nil {
		return nil, err
	}
	defer stock.stop()
	px, err := startProxy("http://"+stock.addr+"/stock", v.H2C, origin)
	if err != nil {
		return nil, err
	}
	defer px.close()
	menu, err := startService(ctx, "menu "+v.Name, bins[v.Dir], append([]string{"-stock-url", px.URL()}, v.args(s.Timeout)...)...)
	if err != nil {
		return nil, err
	}
	defer menu.stop()

	// Sample the stock service's own in-flight gauge, the connections the
	// menu opened and its goroutines, until the end.
	client := &http.Client{Transport: &http.Transport{}, Timeout: 5 * time.Second}
	defer client.CloseIdleConnections()
	every := min(max(time.Duration(float64(100*time.Millisecond)*s.Scale), 25*time.Millisecond), time.Second)
	var (
		mu       sync.Mutex
		samples  []Sample
		inFlight atomic.Int64
	)
	sampleCtx, stopSampling := context.WithCancel(ctx)
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		tick := time.NewTicker(every)
		defer tick.Stop()
		for {
			if vars, err := readStockVars(sampleCtx, client, stock.addr); err == nil {
				inFlight.Store(vars.Stock.InFlight)
				mu.Lock()
				samples = append(samples, Sample{
					T:          time.Since(origin).Seconds(),
					InFlight:   vars.Stock.InFlight,
					Conns:      px.connCount(),
					Goroutines: int(menu.goroutines.Load()),
				})
				mu.Unlock()
			}
			select {
			case <-sampleCtx.Done():
				return
			case <-tick.C:
			}
		}
	}()
	defer func() { stopSampling(); <-sampled }()

	// The load.
	var issued atomic.Int64
	loadStart := time.Since(origin)
	tick := func(phase string, of time.Duration) (stop func()) {
		start := time.Now()
		done, finished := make(chan struct{}), make(chan struct{})
		go func() {
			defer close(finished)
			t := time.NewTicker(250 * time.Millisecond)
			defer t.Stop()
			for {
				show(v.Name, phase, time.Since(start), of, issued.Load(), inFlight.Load())
				select {
				case <-done:
					return
				case <-t.C:
				}
			}
		}()
		return func() { close(done); <-finished }
	}
	endShow := tick("load", s.Duration)
	run, err := drive(ctx, "http://"+menu.addr+"/menu", s.Conns, s.Duration, &issued)
	endShow()
	if err != nil {
		return nil, err
	}
	loadEnd := time.Since(origin)

	// The stock service may still be working for the menu's callers: v2
	// left its calls running. Wait for them, for the waste to be whole.
	drainFor := s.MaxDelay + time.Second
	endShow = tick("drain", drainFor)
	deadline := time.Now().Add(drainFor)
	drained := false
	for !drained && time.Now().Before(deadline) {
		_, _, pxInFlight := px.snapshot()
		// A stock service without working counters (an unfinished step
		// with -own) is judged by the proxy alone.
		if vars, err := readStockVars(ctx, client, stock.addr); pxInFlight == 0 && (err != nil || vars.Stock.InFlight == 0) {
			drained = true
			break
		}
		select {
		case <-ctx.Done():
			endShow()
			return nil, ctx.Err()
		case <-time.After(every):
		}
	}
	endShow()
	vars, varsErr := readStockVars(ctx, client, stock.addr)
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	stopSampling()
	<-sampled
	calls, conns, _ := px.snapshot()

	r := summarise(v, s, run, calls, conns)
	r.StockStarted, r.StockCompleted = vars.Stock.Started, vars.Stock.Completed
	r.StockAbandoned, r.StockLeftOver = vars.Stock.Abandoned, vars.Stock.InFlight
	r.DrainTimedOut = !drained
	if varsErr != nil {
		r.Notes = append(r.Notes, fmt.Sprintf("the stock service's counters could not be read: %v", varsErr))
	}
	if len(samples) == 0 {
		r.Notes = append(r.Notes, "no reading of the stock service's in-flight gauge succeeded")
	}
	// Every clock starts when the load did.
	shift := loadStart.Seconds()
	r.LoadEnd = loadEnd.Seconds() - shift
	mu.Lock()
	for _, smp := range samples {
		smp.T -= shift
		if smp.T >= 0 {
			r.Samples = append(r.Samples, smp)
		}
	}
	mu.Unlock()
	r.Waste.GaugeSeconds = gaugeSeconds(r.Samples)
	r.PeakInFlight = peak(r.Samples, func(s Sample) int64 { return s.InFlight })
	r.PeakGoroutines = peak(r.Samples, func(s Sample) int { return s.Goroutines })
	return r, nil
}

// summarise computes a version's figures from what hey and the proxy saw.
func summarise(v version, s Setup, run heyRun, calls []call, conns int) *Result {
	r := &Result{Version: v.Name, Title: v.Title, Statuses: map[string]int{}, Capped: run.Capped}
	lats := make([]time.Duration, len(run.Lats))
	for i, l := range run.Lats {
		lats[i] = time.Duration(l * float64(time.Second))
	}
	r.Latency = latencyOf(lats)
	for _, code := range run.Codes {
		r.Statuses[strconv.Itoa(code)]++
		if code >= 200 && code < 300 {
			r.OK++
		} else {
			r.NotOK++
		}
	}
	for _, n := range run.Errors {
		r.Errors += n
	}
	r.Requests = len(run.Codes) + r.Errors
	r.Elapsed = run.Elapsed.Seconds()
	if r.Elapsed > 0 {
		r.ReqPerSec = float64(r.Requests) / r.Elapsed
	}
	if f, ok := talk[v.Talk]; ok {
		r.Talk = &f
	}

	timeout := s.Timeout
	if v.Name == "v1" {
		timeout = 0 // v1 waits for ever
	}
	r.Calls = len(calls)
	r.Waste = wasteOf(calls, timeout)
	r.Conns = conns
	r.ConnsPer1000 = per1000(conns, len(calls))
	r.ConnsPer1000C = per1000(conns, r.Waste.Cancelled)
	return r
}
