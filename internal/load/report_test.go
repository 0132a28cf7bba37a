package load

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fixedReport is a report as a run at -scale 0.25 might produce it.
func fixedReport() *Report {
	s := Setup{Scale: 0.25, Timeout: 250 * time.Millisecond, MaxDelay: 2500 * time.Millisecond,
		Duration: 5 * time.Second, Conns: 100, CPUs: 2, GoVer: "go1.26", Versions: []string{"v2", "v3", "v3-h2c"}}
	v2 := &Result{Version: "v2", Title: "menu v2", Latency: Latency{P2_5: 60, P50: 251, P97_5: 253, P99: 255, Avg: 240, Stdev: 40, Max: 262},
		ReqPerSec: 400, Requests: 2000, OK: 200, NotOK: 1800, Statuses: map[int]int{200: 200, 504: 1800},
		Waste: Waste{StockSeconds: 500, LeftSeconds: 405, Share: 0.81, PastDeadline: 1800}, PeakInFlight: 530, LoadEnd: 5}
	for i := range 76 { // in flight climbs to 500 during the load, then drains for 2.5s
		t := float64(i) / 10
		n := min(t*250, 500)
		if t > 5 {
			n = max(500-(t-5)*200, 0)
		}
		v2.Samples = append(v2.Samples, Sample{T: t, InFlight: int64(n)})
	}
	f := talk["v2"]
	v2.Talk = &f
	v3 := &Result{Version: "v3", Title: "menu v3", Latency: Latency{P50: 252, P99: 257, Max: 262}, Requests: 2000,
		Waste: Waste{StockSeconds: 480, LeftSeconds: 0.4, Share: 0.0008, Cancelled: 1800}, Conns: 1700, ConnsPer1000C: 944.4, PeakInFlight: 100}
	h2 := &Result{Version: "v3-h2c", Title: "menu v3 over h2c", Requests: 2000, Calls: 1900,
		Waste: Waste{Cancelled: 1800}, Conns: 4, ConnsPer1000C: 2.2}
	for i := range 51 {
		t := float64(i) / 10
		v3.Samples = append(v3.Samples, Sample{T: t, InFlight: 100})
		h2.Samples = append(h2.Samples, Sample{T: t, InFlight: 100})
	}
	r := &Report{Setup: s, Build: 3, Total: 30, Results: []*Result{v2, v3, h2}}
	r.Goals = goals(r)
	return r
}

func TestWriteText(t *testing.T) {
	var b bytes.Buffer
	writeText(&b, fixedReport())
	out := b.String()

	t.Run("prints the talk's table beside the talk's figures, scaled and as they were", func(t *testing.T) {
		assert.Contains(t, out, "v2 — menu v2", "the version's heading")
		assert.Regexp(t, `this run \(0s\)\s+60\.0ms\s+251ms\s+253ms\s+255ms\s+240ms\s+40\.0ms\s+262ms\s+400\.0\s+200\s+1800`, out, "this run's row")
		assert.Regexp(t, `talk × 0\.25\s+63\.2ms\s+251ms\s+256ms\s+286ms`, out, "the talk's v2 with every duration × 0.25")
		assert.Regexp(t, `talk \(60s\)\s+253ms\s+1004ms\s+1024ms\s+1146ms\s+958ms\s+177ms\s+1217ms\s+103\.5\s+612\s+5596`, out, "the talk's own v2 figures")
	})

	t.Run("prints what happened behind the menu", func(t *testing.T) {
		assert.Contains(t, out, "500.0 s, of which 405.0 s (81.0 %) for callers who had already left", "v2's waste")
		assert.Contains(t, out, "1800 (the menu answered 1800 × 504)", "v2's calls past the deadline beside its 504s")
		assert.Contains(t, out, "4 for 1900 calls: 2.2 per 1000 cancelled calls (1800 cancelled)", "v3-h2c's connections")
	})

	t.Run("draws v2 and v3's in-flight requests, v3 in front, the end of the load marked", func(t *testing.T) {
		chart := inFlightChart(fixedReport()).text(60, 10)
		lines := strings.Split(chart, "\n")
		require.GreaterOrEqual(t, len(lines), 13, "the chart: title, 10 rows, axis, time labels, legend:\n%s", chart)
		assert.Regexp(t, `^\s+500 ┤`, lines[1], "top row's label: v2's plateau of 500, a round number:\n%s", chart)
		assert.Contains(t, lines[1], "░", "v2's plateau of 500 reaches the top row:\n%s", chart)
		assert.NotContains(t, lines[1], "█", "v3's 100 in flight stay low:\n%s", chart)
		assert.Contains(t, lines[10], "█", "v3's 100 in flight fill the bottom rows:\n%s", chart)
		assert.Contains(t, lines[13], "↑ load ended at 5.0s", "the end of the load is marked under the time axis:\n%s", chart)
		assert.Equal(t, 40+9, strings.Index(string([]rune(lines[13])), "↑"), "the mark sits under column 40 of 60 (5s of 7.5s):\n%s", chart)
		assert.Contains(t, chart, "░ v2   █ v3   (v3 in front)", "the legend:\n%s", chart)
		assert.Contains(t, lines[12], "7.5s", "the time axis ends at the last sample:\n%s", chart)
	})

	t.Run("judges the goals its scale allows, and names the others", func(t *testing.T) {
		assert.Regexp(t, `\n  met\s+v2 stock work for callers who had left`, out, "v2's 81 %")
		assert.Regexp(t, `\n  not judged\s+v3 p99 latency\s+want ≤ 1\.03 × timeout\s+got 1\.028 × timeout \(257ms\) — stated for -scale 1, this run -scale 0\.25`, out, "v3's p99 at -scale 0.25")
		assert.Regexp(t, `\n  not judged\s+v3 over h2c: connections per 1000 cancelled calls`, out, "h2c's connections at -scale 0.25")
		assert.Contains(t, out, "go tool workshop load -scale 1", "how to judge the goals left out")
		assert.NotContains(t, out, "NOT met", "no goal reads as missed at a scale it is not stated for")
	})

	t.Run("shows the mix of answers", func(t *testing.T) {
		assert.Contains(t, out, "  answers: 200 × 200, 504 × 1800\n", "v2's statuses, by status")
	})
}

func TestNiceCeil(t *testing.T) {
	for v, want := range map[float64]float64{1: 1, 7: 8, 100: 100, 101: 120, 530: 600, 1806: 2000, 0.3: 0.3} {
		assert.InDelta(t, want, niceCeil(v), 1e-9, "niceCeil(%v)", v)
	}
}

func TestRenderHTML(t *testing.T) {
	page := renderHTML(fixedReport())

	t.Run("is a page with the charts as inline SVG, then the text report", func(t *testing.T) {
		assert.True(t, strings.HasPrefix(page, "<!doctype html>"), "the page starts %q", page[:min(40, len(page))])
		assert.Equal(t, 1, strings.Count(page, "<svg "), "the chart of v2 and v3's stock requests in flight")
		assert.Equal(t, strings.Count(page, "<svg "), strings.Count(page, "</svg>"), "every svg is closed")
		assert.Equal(t, 2, strings.Count(page, "<polygon "), "one area per version")
		assert.Regexp(t, `talk \(60s\)\s+253ms\s+1004ms`, page, "the talk's v2 figures")
		assert.Contains(t, page, "405.0 s (81.0 %)", "v2's waste")
		assert.Contains(t, page, "1800 (the menu answered 1800 × 504)", "v2's calls past the deadline beside its 504s")
	})

	t.Run("loads nothing from anywhere", func(t *testing.T) {
		external := regexp.MustCompile(`(?i)(src|href)\s*=|<script|<link|url\(`)
		assert.Empty(t, external.FindAllString(page, -1), "references to other resources in the report")
	})

	t.Run("escapes what it prints", func(t *testing.T) {
		r := fixedReport()
		r.Results[0].Title = "<b>bold</b> & co"
		assert.Contains(t, renderHTML(r), "&lt;b&gt;bold&lt;/b&gt; &amp; co", "a title with markup, escaped")
	})
}

func TestJSON(t *testing.T) {
	js, err := json.Marshal(fixedReport())
	require.NoError(t, err, "json.Marshal(report)")
	var back Report
	require.NoError(t, json.Unmarshal(js, &back), "json.Unmarshal of the report")
	assert.Equal(t, fixedReport().Results[0].Waste, back.Results[0].Waste, "v2's waste, through JSON and back")
	assert.Equal(t, fixedReport().Results[0].Statuses, back.Results[0].Statuses, "v2's statuses, through JSON and back")
	assert.Contains(t, string(js), `"upstream_connections_per_1000_cancelled_calls":2.2`, "h2c's rate, by name")
	assert.Contains(t, string(js), `"statuses":{"200":200,"504":1800}`, "v2's statuses, by status")
}
