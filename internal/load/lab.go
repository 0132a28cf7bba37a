package load

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sync/atomic"
	"time"
)

// version is one configuration of the menu the lab measures.
type version struct {
	Name  string   // as -versions spells it
	Title string   // what it is, in a few words
	Dir   string   // the step's folder, under solutions/ unless -own
	H2C   bool     // menu and stock service talk HTTP/2 without TLS
	Flags []string // the menu's flags; "T" is the timeout, which v1 has none of
	// Answers are the statuses its finished menu gives: anything else (a
	// starter's 501, a 502 from a stock service that fails) means the
	// figures are not this version's (crossChecks).
	Answers []int
}

var versions = []version{
	{Name: "v1", Title: "menu v1: waits for the stock service", Dir: "02-menu-v1", Answers: []int{200}},
	{Name: "v2", Title: "menu v2: answers 504 at the timeout, leaves the stock call running", Dir: "03-menu-v2",
		Flags: []string{"-timeout", "T"}, Answers: []int{200, 504}},
	{Name: "v3", Title: "menu v3: cancels the stock call at the timeout (-fail-after 0)", Dir: "05-menu-v3",
		Flags: []string{"-timeout", "T", "-fail-after", "0"}, Answers: []int{200, 504}},
	{Name: "v3-fail-fast", Title: "menu v3, failing fast: 503 at once after 5 timeouts in a row", Dir: "05-menu-v3",
		Flags: []string{"-timeout", "T", "-fail-after", "5", "-cool-down", "T"}, Answers: []int{200, 503, 504}}, // the cool-down scales as every duration does
	{Name: "v3-h2c", Title: "menu v3 over HTTP/2 without TLS: a cancel is a RST_STREAM frame", Dir: "05-menu-v3", H2C: true,
		Flags: []string{"-timeout", "T", "-fail-after", "0", "-h2c"}, Answers: []int{200, 504}},
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
	// Unfinished says, with -own, how far each step whose tests do not all
	// pass is ("0 of 9 tests pass — measuring your starter"), by folder.
	Unfinished map[string]string `json:"unfinished_steps,omitempty"`
	Versions   []string          `json:"versions"`
	CPUs       int               `json:"cpus"`
	GoVer      string            `json:"go"`
	JSON       bool              `json:"-"` // -json
	HTML       string            `json:"-"` // -html: the file to write
}

// Result is every figure the lab measured for one version.
type Result struct {
	Version string `json:"version"`
	Title   string `json:"title"`
	// Unfinished names the steps it was built from whose tests do not all
	// pass (-own; Setup.Unfinished says how far each is): its goals are not
	// judged.
	Unfinished []string `json:"unfinished,omitempty"`

	// What the load generator saw: the talk's table.
	Latency   Latency      `json:"latency"`
	ReqPerSec float64      `json:"req_per_s"`
	Requests  int          `json:"requests"`
	OK        int          `json:"2xx"`
	NotOK     int          `json:"non_2xx"`
	Errors    int          `json:"errors"` // no response at all
	Statuses  map[int]int  `json:"statuses"`
	Elapsed   float64      `json:"elapsed_s"`
	Capped    bool         `json:"capped,omitempty"`
	Talk      *TalkFigures `json:"talk,omitempty"`

	// What happened behind the menu.
	Stock          stockCounters `json:"stock"`
	DrainTimedOut  bool          `json:"drain_timed_out,omitempty"`
	Notes          []string      `json:"notes,omitempty"` // what could not be measured, and why
	Calls          int           `json:"upstream_calls"`
	Waste          Waste         `json:"waste"`
	PeakInFlight   int64         `json:"peak_stock_in_flight"`
	Conns          int           `json:"upstream_connections"`
	ConnsPer1000C  float64       `json:"upstream_connections_per_1000_cancelled_calls"`
	PeakGoroutines int           `json:"peak_menu_goroutines"`
	LoadEnd        float64       `json:"load_end_s"` // when the load generator stopped, on the Samples' clock

	Samples []Sample `json:"samples"`
}

// stockCounters are the stock service's own, from its GET /debug/vars.
type stockCounters struct {
	Started   int64 `json:"started"`
	Completed int64 `json:"completed"`
	Abandoned int64 `json:"abandoned"`
	InFlight  int64 `json:"in_flight"` // in a Result: still running when the lab stopped waiting
}

func readStockCounters(ctx context.Context, client *http.Client, addr string) (stockCounters, error) {
	var v struct{ Stock stockCounters }
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+"/debug/vars", nil) // addr is 127.0.0.1:PORT
	resp, err := client.Do(req)
	if err != nil {
		return v.Stock, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return v.Stock, fmt.Errorf("GET /debug/vars from the stock service: %s", resp.Status)
	}
	err = json.NewDecoder(resp.Body).Decode(&v)
	return v.Stock, err
}

// measure runs one version: a stock service, the lab's proxy, the menu, the
// load; then waits (at most max-delay and a second) for the stock service
// to finish what it still holds, and stops everything.
func measure(ctx context.Context, s Setup, v version, bins map[string]string, p *progress) (*Result, error) {
	stockArgs := []string{"-max-delay", s.MaxDelay.String()}
	if v.H2C {
		stockArgs = append(stockArgs, "-h2c")
	}
	stock, err := startService(ctx, "the stock service", bins[stockDir], stockArgs...)
	if err != nil {
		return nil, err
	}
	defer stock.stop()
	px, err := startProxy(stock.addr, v.H2C)
	if err != nil {
		return nil, err
	}
	defer px.close()
	menuArgs := []string{"-stock-url", px.URL()}
	for _, f := range v.Flags {
		if f == "T" {
			f = s.Timeout.String()
		}
		menuArgs = append(menuArgs, f)
	}
	menu, err := startService(ctx, "menu "+v.Name, bins[v.Dir], menuArgs...)
	if err != nil {
		return nil, err
	}
	defer menu.stop()

	// While the load runs, and then while the stock service finishes what it
	// still holds (v2 left its calls running: the waste must be whole), read
	// its own in-flight gauge and the menu's goroutines, and show progress.
	client := &http.Client{Transport: &http.Transport{}, Timeout: 5 * time.Second}
	defer client.CloseIdleConnections()
	every := max(time.Duration(float64(100*time.Millisecond)*s.Scale), 25*time.Millisecond)
	p.line(fmt.Sprintf("%-13s loading for %v", v.Name, s.Duration))
	var (
		start    = time.Now() // the result's clock: Samples and LoadEnd
		run      heyRun
		runErr   error
		issued   atomic.Int64
		loadEnd  time.Duration
		deadline time.Time // of the wait for the stock service, once the load ended
		drained  bool
		samples  []Sample
		counters stockCounters
		readErr  error
	)
	loaded := make(chan struct{})
	go func() {
		defer close(loaded)
		run, runErr = drive(ctx, "http://"+menu.addr+"/menu", s.Conns, s.Duration, &issued)
		loadEnd = time.Since(start)
	}()
	loading, phase, drainFor := loaded, "loading", s.MaxDelay+time.Second
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		if counters, readErr = readStockCounters(ctx, client, stock.addr); readErr == nil {
			samples = append(samples, Sample{T: time.Since(start).Seconds(), InFlight: counters.InFlight,
				Goroutines: int(menu.goroutines.Load())})
			p.update(fmt.Sprintf("%-13s %s %5.1fs  %6d requests sent  stock in flight %4d",
				v.Name, phase, time.Since(start).Seconds(), issued.Load(), counters.InFlight))
		}
		if loading == nil {
			// A stock service without working counters (an unfinished step
			// with -own) is judged by the proxy alone.
			if drained = px.inFlight.Load() == 0 && (readErr != nil || counters.InFlight == 0); drained || time.Now().After(deadline) {
				break
			}
		}
		select {
		case <-ctx.Done():
			<-loaded
			return nil, ctx.Err()
		case <-loading:
			if runErr != nil {
				return nil, runErr
			}
			loading, deadline = nil, time.Now().Add(drainFor)
			phase = "waiting for the stock service to finish"
			p.line(fmt.Sprintf("%-13s waiting for the stock service to finish (at most %v)", v.Name, drainFor))
		case <-tick.C:
		}
	}
	r := summarise(v, s, run, px.finished(), int(px.conns.Load()))
	r.Stock, r.DrainTimedOut = counters, !drained
	if readErr != nil {
		r.Notes = append(r.Notes, fmt.Sprintf("the stock service's counters could not be read: %v", readErr))
	}
	r.LoadEnd, r.Samples = loadEnd.Seconds(), samples
	for _, smp := range samples {
		r.PeakInFlight = max(r.PeakInFlight, smp.InFlight)
		r.PeakGoroutines = max(r.PeakGoroutines, smp.Goroutines)
	}
	r.Waste.GaugeSeconds = gaugeSeconds(samples)
	return r, nil
}

// summarise computes a version's figures from what hey and the proxy saw.
func summarise(v version, s Setup, run heyRun, calls []call, conns int) *Result {
	r := &Result{Version: v.Name, Title: v.Title, Statuses: map[int]int{}, Capped: run.Capped}
	r.Latency = latencyOf(run.Lats)
	for _, code := range run.Codes {
		r.Statuses[code]++
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
	if r.Elapsed = run.Elapsed.Seconds(); r.Elapsed > 0 {
		r.ReqPerSec = float64(r.Requests) / r.Elapsed
	}
	if f, ok := talk[v.Name]; ok {
		r.Talk = &f
	}
	timeout := s.Timeout
	if v.Name == "v1" {
		timeout = 0 // v1 waits for ever
	}
	r.Calls, r.Conns = len(calls), conns
	r.Waste = wasteOf(calls, timeout)
	if r.Waste.Cancelled > 0 {
		r.ConnsPer1000C = 1000 * float64(conns) / float64(r.Waste.Cancelled)
	}
	return r
}
