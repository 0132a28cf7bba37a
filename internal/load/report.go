package load

import (
	"fmt"
	"io"
	"math"
	"strings"
	"time"
)

// ms formats milliseconds as the talk's tables do, or in seconds past 10 s.
func ms(v float64) string {
	switch {
	case v >= 10000:
		return fmt.Sprintf("%.2fs", v/1000)
	case v >= 100:
		return fmt.Sprintf("%.0fms", v)
	default:
		return fmt.Sprintf("%.1fms", v)
	}
}

func pct(share float64) string { return fmt.Sprintf("%.1f %%", 100*share) }

// writeText prints the report as tables and a chart for a terminal.
func writeText(w io.Writer, r *Report) {
	s := r.Setup
	fmt.Fprintf(w, "\nIce Cream Corp load lab — %d connections, %v per version, -scale %g: menu timeout %v, stock delay 0–%v\n",
		s.Conns, s.Duration, s.Scale, s.Timeout, s.MaxDelay)
	what := "the solutions, built"
	if s.Own {
		what = "your own steps, tested and built"
	}
	fmt.Fprintf(w, "%s in %.1fs; %d CPUs, %s; whole run %.1fs, ended %s\n", what, r.Build, s.CPUs, s.GoVer, r.Total, r.Finished.Format("2006-01-02 15:04 MST"))
	for _, res := range r.Results {
		fmt.Fprintln(w)
		writeResult(w, s, res)
	}
	if chart := inFlightChart(r); chart != nil {
		fmt.Fprintln(w)
		fmt.Fprint(w, chart.text(64, 12))
	}
	if len(r.Goals) > 0 {
		fmt.Fprintf(w, "\nGoals (stated on 2 cores; this run: -scale %g, %d CPUs)\n", s.Scale, s.CPUs)
		atScale1 := false
		for _, g := range r.Goals {
			verdict, why := "NOT met", ""
			switch {
			case !g.Judged:
				verdict, why = "not judged", " — "+g.NotJudged
				atScale1 = atScale1 || strings.Contains(g.NotJudged, "-scale 1")
			case g.Met:
				verdict = "met"
			}
			fmt.Fprintf(w, "  %-10s  %-52s want %-18s got %s%s\n", verdict, g.What, g.Want, g.Got, why)
		}
		if atScale1 {
			fmt.Fprintln(w, "  the goals not judged at this scale need the talk's durations: go tool workshop load -scale 1 (about 2½ minutes)")
		}
	}
	if len(r.Warnings) > 0 {
		fmt.Fprintln(w, "\nWarnings: figures that do not hold together (the lab exits 1)")
		for _, warn := range r.Warnings {
			fmt.Fprintf(w, "  ! %s\n", warn)
		}
	}
}

// latencyRow is one row of the talk's table.
func latencyRow(label string, l Latency, rps float64, ok, notOK string) string {
	return fmt.Sprintf("  %-16s %8s %8s %8s %8s %8s %8s %8s %8.1f %7s %8s\n", label,
		ms(l.P2_5), ms(l.P50), ms(l.P97_5), ms(l.P99), ms(l.Avg), ms(l.Stdev), ms(l.Max), rps, ok, notOK)
}

func writeResult(w io.Writer, s Setup, r *Result) {
	fmt.Fprintf(w, "%s — %s\n", r.Version, r.Title)
	for _, dir := range r.Unfinished {
		fmt.Fprintf(w, "  %s: %s\n", dir, s.Unfinished[dir])
	}
	fmt.Fprintf(w, "  %-16s %8s %8s %8s %8s %8s %8s %8s %8s %7s %8s\n", "latency", "2.5%", "50%", "97.5%", "99%", "avg", "stdev", "max", "req/s", "2xx", "non-2xx")
	fmt.Fprint(w, latencyRow(fmt.Sprintf("this run (%.0fs)", r.Elapsed), r.Latency, r.ReqPerSec, fmt.Sprint(r.OK), fmt.Sprint(r.NotOK)))
	if t := r.Talk; t != nil {
		if s.Scale != 1 {
			ts := t.scaled(s.Scale)
			fmt.Fprint(w, latencyRow(fmt.Sprintf("talk × %g", s.Scale), ts.Latency, ts.ReqPerSec, "", ""))
		}
		ok, notOK := "", ""
		if t.OK > 0 {
			ok, notOK = fmt.Sprint(t.OK), fmt.Sprint(t.NotOK)
		}
		fmt.Fprint(w, latencyRow("talk (60s)", t.Latency, t.ReqPerSec, ok, notOK))
	}
	if len(r.Statuses) > 0 {
		fmt.Fprintf(w, "  answers: %s\n", statusMix(r.Statuses))
	}
	if r.Errors > 0 {
		fmt.Fprintf(w, "  %d requests got no response at all\n", r.Errors)
	}
	if r.Capped {
		fmt.Fprintf(w, "  (the load generator reached its limit of %d requests before the time was up)\n", maxRequests(s.Conns, s.Duration))
	}
	for _, n := range r.Notes {
		fmt.Fprintf(w, "  note: %s\n", n)
	}
	fmt.Fprintln(w, "  behind the menu")
	row := func(k, format string, args ...any) {
		fmt.Fprintf(w, "    %-36s %s\n", k, fmt.Sprintf(format, args...))
	}
	row("stock requests", "%d started: %d completed, %d abandoned, %d still running when the lab stopped waiting",
		r.Stock.Started, r.Stock.Completed, r.Stock.Abandoned, r.Stock.InFlight)
	if r.DrainTimedOut {
		row("", "(the lab stopped waiting for the stock service after %v)", s.MaxDelay+time.Second)
	}
	row("stock work", "%.1f s, of which %.1f s (%s) for callers who had already left",
		r.Waste.StockSeconds, r.Waste.LeftSeconds, pct(r.Waste.Share))
	row("", "(%.1f s by the stock service's own in-flight gauge)", r.Waste.GaugeSeconds)
	if r.Version != "v1" && r.Waste.Cancelled == 0 {
		row("calls outliving the menu's timeout", "%d (the menu answered %d × 504)", r.Waste.PastDeadline, r.Statuses[504])
	}
	row("peak stock in flight", "%d", r.PeakInFlight)
	conns := fmt.Sprintf("%d for %d calls", r.Conns, r.Calls)
	if r.Waste.Cancelled > 0 {
		conns += fmt.Sprintf(": %.1f per 1000 cancelled calls (%d cancelled)", r.ConnsPer1000C, r.Waste.Cancelled)
	}
	row("upstream connections used", "%s", conns)
	row("peak menu goroutines", "%d", r.PeakGoroutines)
}

// series is one version's in-flight gauge over time, for the chart.
type series struct {
	Name   string
	Glyph  rune
	Color  string       // in the HTML report
	Points [][2]float64 // seconds since the load began, requests in flight
}

// chart is the stock service's requests in flight under v2 and v3, drawn as
// areas, v3 in front, and the end of v2's load marked (End: 0 when v2 was
// not measured).
type chart struct {
	Series []series
	End    float64
}

const (
	chartTitle = "The stock service's requests in flight (its own gauge), from the start of the load"
	chartNote  = "after the load, what is left of v2 is work for callers who had gone"
)

func inFlightChart(r *Report) *chart {
	c := &chart{}
	for _, v := range []series{{Name: "v2", Glyph: '░', Color: "#d9822b"}, {Name: "v3", Glyph: '█', Color: "#2b6cb0"}} {
		res := r.result(v.Name)
		if res == nil || len(res.Samples) == 0 {
			continue
		}
		for _, smp := range res.Samples {
			v.Points = append(v.Points, [2]float64{smp.T, float64(smp.InFlight)})
		}
		if v.Name == "v2" {
			c.End = res.LoadEnd
		}
		c.Series = append(c.Series, v)
	}
	if len(c.Series) == 0 {
		return nil
	}
	return c
}

// bounds is the chart's largest time, and its largest value rounded up to
// 1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6 or 8 times a power of ten.
func (c *chart) bounds() (tMax, vMax float64) {
	for _, s := range c.Series {
		for _, p := range s.Points {
			tMax, vMax = max(tMax, p[0]), max(vMax, p[1])
		}
	}
	return max(tMax, 1e-9), niceCeil(max(vMax, 1))
}

// niceCeil rounds v, which is positive, up as bounds says.
func niceCeil(v float64) float64 {
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8} {
		if m*p >= v {
			return m * p
		}
	}
	return 10 * p
}

// columns resamples s, which has points, into n columns over [0, tMax]:
// each column holds the largest value of the points that fall in it, or the
// last value before it if none does (a gauge holds its value between
// readings), and 0 past the last reading.
func (s series) columns(n int, tMax float64) []float64 {
	cols := make([]float64, n)
	filled := make([]bool, n)
	for _, p := range s.Points {
		if i := min(int(p[0]/tMax*float64(n)), n-1); !filled[i] || p[1] > cols[i] {
			cols[i], filled[i] = p[1], true
		}
	}
	last, end := 0.0, s.Points[len(s.Points)-1][0]
	for i := range cols {
		switch {
		case filled[i]:
			last = cols[i]
		case float64(i)/float64(n)*tMax <= end:
			cols[i] = last
		}
	}
	return cols
}

// text draws the chart in width columns and height rows of characters.
func (c *chart) text(width, height int) string {
	tMax, vMax := c.bounds()
	grid := make([][]rune, height)
	for i := range grid {
		grid[i] = []rune(strings.Repeat(" ", width))
	}
	for _, s := range c.Series {
		for x, v := range s.columns(width, tMax) {
			// A cell is filled when the value reaches its middle; a value
			// above zero shows at least a sliver on the bottom row.
			cells := int(math.Round(v / vMax * float64(height)))
			if v > 0 {
				cells = max(cells, 1)
			}
			for y := 0; y < cells && y < height; y++ {
				grid[height-1-y][x] = s.Glyph
			}
		}
	}
	end := min(int(c.End/tMax*float64(width)), width-1)
	for y := range grid {
		if c.End > 0 && grid[y][end] == ' ' {
			grid[y][end] = '|'
		}
	}
	var b strings.Builder
	fmt.Fprintln(&b, chartTitle)
	for y, row := range grid {
		label := ""
		switch y {
		case 0:
			label = fmt.Sprintf("%.0f", vMax)
		case height / 2:
			label = fmt.Sprintf("%.0f", vMax/2)
		}
		fmt.Fprintf(&b, "%7s ┤%s\n", label, string(row))
	}
	fmt.Fprintf(&b, "%7s └%s\n", "0", strings.Repeat("─", width))
	mid, right := fmt.Sprintf("%.1fs", tMax/2), fmt.Sprintf("%.1fs", tMax)
	fmt.Fprintf(&b, "%7s  %-*s%s%*s\n", "", width/2-len(mid)/2, "0s", mid, width-width/2+len(mid)/2-len(mid)+1, right)
	if c.End > 0 {
		label := fmt.Sprintf("↑ load ended at %.1fs", c.End)
		if end+len([]rune(label)) > width+8 {
			label = fmt.Sprintf("load ended at %.1fs ↑", c.End)
			end -= len([]rune(label)) - 1
		}
		fmt.Fprintf(&b, "%7s  %s%s\n", "", strings.Repeat(" ", max(end, 0)), label)
	}
	var legend []string
	for _, s := range c.Series {
		legend = append(legend, fmt.Sprintf("%c %s", s.Glyph, s.Name))
	}
	fmt.Fprintf(&b, "%7s  %s", "", strings.Join(legend, "   "))
	if len(c.Series) > 1 {
		fmt.Fprint(&b, "   (v3 in front)")
	}
	if c.End > 0 {
		fmt.Fprintf(&b, "\n%7s  %s", "", chartNote)
	}
	fmt.Fprintln(&b)
	return b.String()
}
