package load

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/rakyll/hey/requester"
)

// heyTemplate is the "output format" the lab hands hey's requester: a text
// template over its Report, printed once the run is over. Rather than hey's
// summary, it asks for the raw figures, which the lab summarises itself in
// the talk's shape. Lats and StatusCodes are in the order the requests
// finished; requests that failed without a response are only in ErrorDist.
const heyTemplate = `{"lats":{{jsonify .Lats}},"codes":{{jsonify .StatusCodes}},"errors":{{jsonify .ErrorDist}},"total":{{jsonify .Total}}}`

// heyRun is what one run of hey's requester measured.
type heyRun struct {
	Lats    []float64      `json:"lats"` // seconds
	Codes   []int          `json:"codes"`
	Errors  map[string]int `json:"errors"`
	Elapsed time.Duration  `json:"total"`
	Capped  bool           // a worker made its last allowed request before the time was up
}

// maxRequests bounds the requests hey may make in one run (it preallocates
// its report for them): at most hey's own limit of a million, and enough for
// 40,000 requests a second, far more than this machine's loopback carries
// through a menu.
func maxRequests(conns int, d time.Duration) int {
	return min(1_000_000, max(conns*100, int(40_000*d.Seconds())))
}

// drive sends GET url from conns connections for d, as `hey -z d -c conns`
// does, and returns what hey measured. Requests in flight when d is up run
// to their end. issued counts the requests sent so far, for the progress
// line. If ctx ends, requests in flight are cancelled and drive returns early.
func drive(ctx context.Context, url string, conns int, d time.Duration, issued *atomic.Int64) (heyRun, error) {
	var out bytes.Buffer
	n := maxRequests(conns, d)
	w := &requester.Work{
		RequestFunc: func() *http.Request {
			issued.Add(1)
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
			return req
		},
		N:      n,
		C:      conns,
		Output: heyTemplate,
		Writer: &out,
	}
	// Run needs Request even with RequestFunc: it reads its Host.
	w.Request, _ = http.NewRequest(http.MethodGet, url, nil)
	w.Init()
	timer, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	stop := context.AfterFunc(timer, w.Stop) // each worker stops after its current request
	w.Run()
	stop()
	if err := ctx.Err(); err != nil {
		return heyRun{}, err
	}
	var run heyRun
	if err := json.Unmarshal(out.Bytes(), &run); err != nil {
		return heyRun{}, fmt.Errorf("reading hey's report: %w", err)
	}
	total := len(run.Lats)
	for _, e := range run.Errors {
		total += e
	}
	run.Capped = total >= n/conns*conns
	return run, nil
}
