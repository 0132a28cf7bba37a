package load

import (
	"bytes"
	"fmt"
	"html/template"
	"strings"
)

// renderHTML returns the report as one self-contained HTML page: the same
// tables and charts as the terminal's, the charts as inline SVG. It loads
// nothing from anywhere.
func renderHTML(r *Report) string {
	var text bytes.Buffer
	writeText(&text, r)
	var charts []template.HTML
	for _, c := range []*chart{inFlightChart(r), connChart(r)} {
		if c != nil {
			charts = append(charts, c.svg(760, 260))
		}
	}
	var b bytes.Buffer
	err := page.Execute(&b, struct {
		R      *Report
		Charts []template.HTML
		Text   string
	}{r, charts, text.String()})
	if err != nil {
		return "<!doctype html><title>workshop load</title><pre>" + template.HTMLEscapeString(err.Error()) + "</pre>"
	}
	return b.String()
}

var page = template.Must(template.New("page").Funcs(template.FuncMap{
	"ms":  ms,
	"pct": pct,
	"answers": func(r *Result) string {
		return statusMix(statusCounts(r))
	},
	"talkScaled": func(t *TalkFigures, scale float64) TalkFigures {
		return t.scaled(scale)
	},
}).Parse(`<!doctype html>
<html lang="en">
<meta charset="utf-8">
<title>Ice Cream Corp load lab</title>
<style>
body { font: 15px/1.45 system-ui, sans-serif; max-width: 60rem; margin: 2rem auto; padding: 0 1rem; color: #1a202c; }
table { border-collapse: collapse; margin: .5rem 0 1rem; }
th, td { padding: .2rem .6rem; text-align: right; border-bottom: 1px solid #e2e8f0; }
th:first-child, td:first-child { text-align: left; }
.behind td { text-align: left; }
.met { color: #2f855a; } .notmet { color: #c53030; font-weight: bold; }
pre { font-size: 12px; background: #f7fafc; padding: .5rem; overflow-x: auto; }
figure { margin: 1rem 0; }
</style>
<h1>Ice Cream Corp load lab</h1>
<p>{{.R.Setup.Conns}} connections, {{.R.Setup.Duration}} per version, <code>-scale {{.R.Setup.Scale}}</code>:
menu timeout {{.R.Setup.Timeout}}, stock delay 0–{{.R.Setup.MaxDelay}}.
{{if .R.Setup.Own}}Your own steps{{else}}The solutions{{end}}, built in {{printf "%.1f" .R.Build}} s;
{{.R.Setup.CPUs}} CPUs, {{.R.Setup.GoVer}}; whole run {{printf "%.1f" .R.Total}} s; finished {{.R.Finished.Format "2006-01-02 15:04 MST"}}.</p>
{{range .Charts}}<figure>{{.}}</figure>
{{end}}
{{$s := .R.Setup}}
{{range .R.Results}}
<h2>{{.Version}} — {{.Title}}</h2>
{{range .Unfinished}}<p class="notmet">{{.}}</p>{{end}}
<table>
<tr><th>latency</th><th>2.5%</th><th>50%</th><th>97.5%</th><th>99%</th><th>avg</th><th>stdev</th><th>max</th><th>req/s</th><th>2xx</th><th>non-2xx</th></tr>
<tr><td>this run ({{printf "%.0f" .Elapsed}} s)</td><td>{{ms .Latency.P2_5}}</td><td>{{ms .Latency.P50}}</td><td>{{ms .Latency.P97_5}}</td><td>{{ms .Latency.P99}}</td><td>{{ms .Latency.Avg}}</td><td>{{ms .Latency.Stdev}}</td><td>{{ms .Latency.Max}}</td><td>{{printf "%.1f" .ReqPerSec}}</td><td>{{.OK}}</td><td>{{.NotOK}}</td></tr>
{{with .Talk}}{{if ne $s.Scale 1.0}}{{$t := talkScaled . $s.Scale}}<tr><td>talk × {{$s.Scale}}</td><td>{{ms $t.Latency.P2_5}}</td><td>{{ms $t.Latency.P50}}</td><td>{{ms $t.Latency.P97_5}}</td><td>{{ms $t.Latency.P99}}</td><td>{{ms $t.Latency.Avg}}</td><td>{{ms $t.Latency.Stdev}}</td><td>{{ms $t.Latency.Max}}</td><td>{{printf "%.1f" $t.ReqPerSec}}</td><td></td><td></td></tr>{{end}}
<tr><td>talk (60 s)</td><td>{{ms .Latency.P2_5}}</td><td>{{ms .Latency.P50}}</td><td>{{ms .Latency.P97_5}}</td><td>{{ms .Latency.P99}}</td><td>{{ms .Latency.Avg}}</td><td>{{ms .Latency.Stdev}}</td><td>{{ms .Latency.Max}}</td><td>{{printf "%.1f" .ReqPerSec}}</td><td>{{if .OK}}{{.OK}}{{end}}</td><td>{{if .OK}}{{.NotOK}}{{end}}</td></tr>{{end}}
</table>
<table class="behind">
<tr><td>answers</td><td>{{answers .}}</td></tr>
<tr><td>stock requests</td><td>{{.StockStarted}} started: {{.StockCompleted}} completed, {{.StockAbandoned}} abandoned, {{.StockLeftOver}} still running when the lab stopped waiting</td></tr>
<tr><td>stock work</td><td>{{printf "%.1f" .Waste.StockSeconds}} s, of which {{printf "%.1f" .Waste.LeftSeconds}} s ({{pct .Waste.Share}}) for callers who had already left</td></tr>
{{if and (ne .Version "v1") (not .Waste.Cancelled)}}<tr><td>calls outliving the menu's timeout</td><td>{{.Waste.PastDeadline}} (the menu answered {{index .Statuses "504"}} × 504)</td></tr>{{end}}
{{range .Notes}}<tr><td>note</td><td>{{.}}</td></tr>{{end}}
<tr><td>peak stock in flight</td><td>{{.PeakInFlight}}</td></tr>
<tr><td>upstream connections opened</td><td>{{.Conns}}: {{printf "%.1f" .ConnsPer1000}} per 1000 calls{{if .Waste.Cancelled}}, {{printf "%.1f" .ConnsPer1000C}} per 1000 cancelled calls ({{.Waste.Cancelled}} cancelled){{end}}</td></tr>
<tr><td>peak menu goroutines</td><td>{{.PeakGoroutines}}</td></tr>
</table>
{{end}}
{{with .R.Goals}}<h2>Goals</h2>
<table class="behind">
{{range .}}<tr><td>{{.What}}</td><td>want {{.Want}}</td><td>got {{.Got}}</td>{{if not .Judged}}<td>not judged: {{.NotJudged}}</td>{{else if .Met}}<td class="met">met</td>{{else}}<td class="notmet">not met</td>{{end}}</tr>
{{end}}</table>{{end}}
{{with .R.Warnings}}<h2>Warnings: figures that do not hold together</h2>
<ul>{{range .}}<li class="notmet">{{.}}</li>{{end}}</ul>{{end}}
<h2>As the terminal showed it</h2>
<pre>{{.Text}}</pre>
</html>
`))

// svg draws the chart as an inline SVG of width × height pixels: one filled
// area per series, the first behind the others, with axes and a legend.
// The areas are opaque, as the terminal's are: where a translucent area in
// front overlapped the one behind, it showed a blend of the two colours,
// which no legend swatch had.
func (c *chart) svg(width, height int) template.HTML {
	const left, right, top, bottom = 56, 16, 28, 44
	w, h := float64(width-left-right), float64(height-top-bottom)
	tMax, vMax := c.bounds()
	vMax = niceCeil(vMax)
	x := func(t float64) float64 { return left + t/tMax*w }
	y := func(v float64) float64 { return top + h - v/vMax*h }
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" role="img" font-family="system-ui, sans-serif" font-size="12">`, width, height, width, height)
	fmt.Fprintf(&b, `<title>%s</title>`, template.HTMLEscapeString(c.Title))
	fmt.Fprintf(&b, `<text x="%d" y="16" font-weight="bold">%s</text>`, left, template.HTMLEscapeString(c.Title))
	for _, f := range []float64{0, 0.5, 1} {
		fmt.Fprintf(&b, `<line x1="%d" x2="%.1f" y1="%.1f" y2="%.1f" stroke="#e2e8f0"/>`, left, left+w, y(f*vMax), y(f*vMax))
		fmt.Fprintf(&b, `<text x="%d" y="%.1f" text-anchor="end">%.0f</text>`, left-6, y(f*vMax)+4, f*vMax)
	}
	for _, f := range []float64{0, 0.25, 0.5, 0.75, 1} {
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="middle">%.1fs</text>`, x(f*tMax), top+h+16, f*tMax)
	}
	for _, s := range c.Series {
		if len(s.Points) == 0 {
			continue
		}
		// A gauge holds its value until the next reading: draw steps.
		var pts strings.Builder
		fmt.Fprintf(&pts, "%.1f,%.1f", x(s.Points[0][0]), y(0))
		prev := 0.0
		for _, p := range s.Points {
			fmt.Fprintf(&pts, " %.1f,%.1f %.1f,%.1f", x(p[0]), y(prev), x(p[0]), y(p[1]))
			prev = p[1]
		}
		last := s.Points[len(s.Points)-1][0]
		fmt.Fprintf(&pts, " %.1f,%.1f", x(last), y(0))
		fmt.Fprintf(&b, `<polygon points="%s" fill="%s" stroke="%s" stroke-width="1"><title>%s</title></polygon>`,
			pts.String(), s.Color, s.Color, template.HTMLEscapeString(s.Name))
	}
	for _, m := range c.Marks {
		fmt.Fprintf(&b, `<line x1="%.1f" x2="%.1f" y1="%d" y2="%.1f" stroke="#4a5568" stroke-dasharray="4 3"/>`, x(m), x(m), top, top+h)
	}
	fmt.Fprintf(&b, `<line x1="%d" x2="%d" y1="%d" y2="%.1f" stroke="#4a5568"/><line x1="%d" x2="%.1f" y1="%.1f" y2="%.1f" stroke="#4a5568"/>`,
		left, left, top, top+h, left, left+w, top+h, top+h)
	lx := float64(left)
	for _, s := range c.Series {
		fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="12" height="12" fill="%s"/><text x="%.1f" y="%.1f">%s</text>`,
			lx, float64(height)-16, s.Color, lx+16, float64(height)-6, template.HTMLEscapeString(s.Name))
		lx += 24 + 8*float64(len(s.Name))
	}
	if c.Note != "" {
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" fill="#4a5568">%s</text>`, lx+8, float64(height)-6,
			template.HTMLEscapeString("dashed: the load ended; "+c.Note))
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String()) //nolint:gosec // built from escaped text and numbers
}
