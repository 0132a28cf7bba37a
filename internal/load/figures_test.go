package load

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestLatencyOf(t *testing.T) {
	t.Run("takes nearest-rank percentiles, the mean, the population's stdev and the max", func(t *testing.T) {
		var lats []float64
		for i := 100; i >= 1; i-- { // 100ms down to 1ms: the order must not matter
			lats = append(lats, float64(i)/1000)
		}
		got := latencyOf(lats)
		want := Latency{P2_5: 3, P50: 50, P97_5: 98, P99: 99, Avg: 50.5, Stdev: 28.866, Max: 100}
		assert.Equal(t, want.P2_5, got.P2_5, "2.5th percentile of 1…100ms")
		assert.Equal(t, want.P50, got.P50, "50th percentile of 1…100ms")
		assert.Equal(t, want.P97_5, got.P97_5, "97.5th percentile of 1…100ms")
		assert.Equal(t, want.P99, got.P99, "99th percentile of 1…100ms")
		assert.InDelta(t, want.Avg, got.Avg, 1e-9, "mean of 1…100ms")
		assert.InDelta(t, want.Stdev, got.Stdev, 1e-3, "stdev of 1…100ms: sqrt((100²-1)/12)")
		assert.Equal(t, want.Max, got.Max, "max of 1…100ms")
	})

	t.Run("of a single request is that request everywhere", func(t *testing.T) {
		got := latencyOf([]float64{0.0015})
		assert.Equal(t, Latency{P2_5: 1.5, P50: 1.5, P97_5: 1.5, P99: 1.5, Avg: 1.5, Max: 1.5}, got, "latencyOf(1.5ms)")
	})

	t.Run("of no request is zero", func(t *testing.T) {
		assert.Equal(t, Latency{}, latencyOf(nil), "latencyOf(nil)")
	})
}

func TestWasteOf(t *testing.T) {
	s := time.Second
	ms := time.Millisecond
	calls := []call{
		{Start: 0, End: 4 * s},                                          // a v2 call: answered 3s after the menu's 1s deadline
		{Start: 2 * s, End: 2*s + 500*ms},                               // answered in time
		{Start: 5 * s, Left: 6*s + 2*ms, End: 6*s + 3*ms},               // v3: cancelled 2ms late, over 1ms later
		{Start: 8 * s, Left: 8*s + 300*ms, End: 8*s + 301*ms},           // v3: its client left early; 1ms more
		{Start: 10 * s, Left: 11 * s, End: 11*s + 200*time.Microsecond}, // cancelled at the deadline
	}

	t.Run("counts stock time after the menu stopped waiting", func(t *testing.T) {
		w := wasteOf(calls, time.Second)
		assert.InDelta(t, 4+0.5+1.003+0.301+1.0002, w.StockSeconds, 1e-9, "stock seconds: every call's duration")
		assert.InDelta(t, 3+0.001+0.001+0.0002, w.LeftSeconds, 1e-9, "seconds after the caller left: past the deadline for the call never cancelled, past the cancel for the others")
		assert.InDelta(t, w.LeftSeconds/w.StockSeconds, w.Share, 1e-12, "share")
		assert.Equal(t, 3, w.Cancelled, "cancelled calls")
		assert.Equal(t, 3, w.PastDeadline, "calls that ended after start + timeout")
	})

	t.Run("with no timeout (v1), a call never cancelled wastes nothing", func(t *testing.T) {
		w := wasteOf(calls[:2], 0)
		assert.Zero(t, w.LeftSeconds, "v1's calls: its callers wait for ever")
		assert.Zero(t, w.PastDeadline, "v1 has no deadline")
	})

	t.Run("of no calls is zero, not NaN", func(t *testing.T) {
		assert.Equal(t, Waste{}, wasteOf(nil, time.Second), "wasteOf(nil)")
	})
}

func TestGaugeSeconds(t *testing.T) {
	samples := []Sample{{T: 0, InFlight: 10}, {T: 0.5, InFlight: 20}, {T: 1.5, InFlight: 0}, {T: 2, InFlight: 5}}
	assert.InDelta(t, 10*0.5+20*1.0, gaugeSeconds(samples), 1e-9, "the gauge held 10 for 0.5s, 20 for 1s, 0 for 0.5s")
}

func TestTalkScaled(t *testing.T) {
	v2 := talk["v2"].scaled(0.25)
	assert.InDelta(t, 251.0, v2.Latency.P50, 1e-9, "the talk's v2 p50 (1004ms) at -scale 0.25")
	assert.InDelta(t, 413.88, v2.ReqPerSec, 1e-9, "the talk's v2 req/s (103.47) at -scale 0.25: four times as many")
	assert.Zero(t, v2.OK, "counts depend on the run's length: not scaled, left out")
}
