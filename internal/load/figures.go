package load

import (
	"math"
	"slices"
	"time"
)

// Latency is the talk's latency row: autocannon's percentiles, mean,
// standard deviation and maximum, in milliseconds.
type Latency struct {
	P2_5  float64 `json:"p2_5_ms"`
	P50   float64 `json:"p50_ms"`
	P97_5 float64 `json:"p97_5_ms"`
	P99   float64 `json:"p99_ms"`
	Avg   float64 `json:"avg_ms"`
	Stdev float64 `json:"stdev_ms"`
	Max   float64 `json:"max_ms"`
}

// latencyOf summarises request latencies in seconds, in any order.
// Percentiles are nearest-rank: the smallest latency that at least p % of
// the requests did not exceed. The standard deviation is the population's,
// as autocannon's.
func latencyOf(seconds []float64) Latency {
	if len(seconds) == 0 {
		return Latency{}
	}
	ms := make([]float64, len(seconds))
	var sum float64
	for i, s := range seconds {
		ms[i] = 1000 * s
		sum += ms[i]
	}
	slices.Sort(ms)
	avg := sum / float64(len(ms))
	var sq float64
	for _, v := range ms {
		sq += (v - avg) * (v - avg)
	}
	return Latency{
		P2_5:  percentile(ms, 2.5),
		P50:   percentile(ms, 50),
		P97_5: percentile(ms, 97.5),
		P99:   percentile(ms, 99),
		Avg:   avg,
		Stdev: math.Sqrt(sq / float64(len(ms))),
		Max:   ms[len(ms)-1],
	}
}

// percentile is the nearest-rank percentile p of sorted, which is not empty.
func percentile(sorted []float64, p float64) float64 {
	rank := int(math.Ceil(p / 100 * float64(len(sorted))))
	return sorted[min(max(rank, 1), len(sorted))-1]
}

// call is one request from the menu to the stock service, as the lab's proxy
// between them saw it. Times are offsets from the proxy's start.
type call struct {
	Start time.Duration // the menu's request arrived
	Left  time.Duration // the menu hung up (cancelled the call); 0 if it never did
	End   time.Duration // the call ended: answered, or cancelled
}

// Waste is what the stock service did for callers who had already left, as
// README.md defines it.
type Waste struct {
	StockSeconds float64 `json:"stock_seconds"` // every call's duration, summed
	LeftSeconds  float64 `json:"left_seconds"`  // the part of it after the menu had stopped waiting
	Share        float64 `json:"share"`         // LeftSeconds / StockSeconds
	// GaugeSeconds is the stock service's own count of its work (its
	// in-flight gauge integrated over time): a cross-check of StockSeconds.
	GaugeSeconds float64 `json:"stock_seconds_by_its_gauge"`
	PastDeadline int     `json:"calls_past_deadline"` // still running at the menu's deadline
	Cancelled    int     `json:"calls_cancelled"`     // the menu hung up on them
}

// wasteOf computes the waste of calls made by a menu that stops waiting when
// it hangs up on a call, or else at its deadline, the call's start + timeout,
// when it answers 504: from then on nobody reads what the stock service
// sends. timeout 0: it waits for ever, as v1 does.
func wasteOf(calls []call, timeout time.Duration) Waste {
	var w Waste
	var stock, left time.Duration
	for _, c := range calls {
		stock += c.End - c.Start
		gone := time.Duration(math.MaxInt64)
		if timeout > 0 {
			gone = c.Start + timeout
			if c.End > gone {
				w.PastDeadline++
			}
		}
		if c.Left > 0 {
			w.Cancelled++
			gone = c.Left
		}
		if c.End > gone {
			left += c.End - gone
		}
	}
	w.StockSeconds, w.LeftSeconds = stock.Seconds(), left.Seconds()
	if stock > 0 {
		w.Share = float64(left) / float64(stock)
	}
	return w
}

// gaugeSeconds integrates a gauge sampled over time: the sum of each
// reading times the time until the next one. For the stock service's
// in-flight gauge, it is the seconds of work the service itself counted.
func gaugeSeconds(samples []Sample) float64 {
	var sum float64
	for i := 1; i < len(samples); i++ {
		sum += float64(samples[i-1].InFlight) * (samples[i].T - samples[i-1].T)
	}
	return sum
}

// Sample is one reading of the system while a version runs.
type Sample struct {
	T          float64 `json:"t_s"`        // seconds since the version's load started
	InFlight   int64   `json:"in_flight"`  // the stock service's own gauge
	Goroutines int     `json:"goroutines"` // the menu's, at the probe's last report
}
