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

// latencyOf summarises request latencies, in any order. Percentiles are
// nearest-rank: the smallest latency that at least p % of the requests did
// not exceed. The standard deviation is the population's, as autocannon's.
func latencyOf(lats []time.Duration) Latency {
	if len(lats) == 0 {
		return Latency{}
	}
	ms := make([]float64, len(lats))
	var sum float64
	for i, d := range lats {
		ms[i] = float64(d) / float64(time.Millisecond)
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
// between them saw it. Times are offsets from the start of the version's load.
type call struct {
	Start time.Duration // the menu's request arrived
	Left  time.Duration // the menu hung up (cancelled the call); 0 if it never did
	End   time.Duration // the call ended: answered, or cancelled
}

// Waste is what the stock service did for callers who had already left.
type Waste struct {
	// StockSeconds is the stock service's work: the sum of every call's
	// duration, from the menu's request to the end of the answer (or the
	// cancel), as the proxy in front of the stock service saw it.
	StockSeconds float64 `json:"stock_seconds"`
	// LeftSeconds is the part of StockSeconds after the caller had left:
	// for each call, from the moment the menu stopped waiting for it to the
	// end of the call. A menu that cancels stops waiting when it hangs up on
	// the stock service, which the proxy sees. A menu that never hangs up
	// (v2) stops waiting at its deadline, start + timeout, when it answers
	// 504: from then on nobody will read what the stock service sends.
	LeftSeconds float64 `json:"left_seconds"`
	// Share is LeftSeconds / StockSeconds.
	Share float64 `json:"share"`
	// GaugeSeconds is the stock service's work by its own count: its
	// in-flight gauge, sampled, integrated over time. It cross-checks
	// StockSeconds, which the proxy measured.
	GaugeSeconds float64 `json:"stock_seconds_by_its_gauge"`
	// PastDeadline counts the calls still running at the menu's deadline.
	PastDeadline int `json:"calls_past_deadline"`
	// Cancelled counts the calls the menu hung up on.
	Cancelled int `json:"calls_cancelled"`
}

// wasteOf computes the waste of calls made by a menu that stops waiting
// after timeout (0: it waits for ever, as v1 does).
func wasteOf(calls []call, timeout time.Duration) Waste {
	var w Waste
	var stock, left time.Duration
	for _, c := range calls {
		stock += c.End - c.Start
		gone := time.Duration(math.MaxInt64) // v1 waits for ever
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
