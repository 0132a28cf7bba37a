package load

import (
	"fmt"
	"html"
	"strings"
)

// renderHTML returns the report as one self-contained HTML page, which
// loads nothing from anywhere: the chart as inline SVG, then the report
// as the terminal shows it.
func renderHTML(r *Report) string {
	var text strings.Builder
	writeText(&text, r)
	figure := ""
	if c := inFlightChart(r); c != nil {
		figure = "<figure>" + c.svg(760, 260) + "</figure>"
	}
	return fmt.Sprintf(page, figure, html.EscapeString(text.String()))
}

const page = `<!doctype html>
<html lang="en">
<meta charset="utf-8">
<title>Ice Cream Corp load lab</title>
<style>
body { font: 15px/1.45 system-ui, sans-serif; max-width: 72rem; margin: 2rem auto; padding: 0 1rem; color: #1a202c; }
pre { font-size: 12px; background: #f7fafc; padding: .5rem; overflow-x: auto; }
</style>
<h1>Ice Cream Corp load lab</h1>
%s
<pre>%s</pre>
</html>
`

// svg draws the chart as an inline SVG of width × height pixels, the areas
// opaque, as the terminal's are: a translucent one in front would show a
// blend of two colours, which no legend swatch has.
func (c *chart) svg(width, height int) string {
	const left, right, top, bottom = 56, 16, 28, 44
	w, h := float64(width-left-right), float64(height-top-bottom)
	tMax, vMax := c.bounds()
	x := func(t float64) float64 { return left + t/tMax*w }
	y := func(v float64) float64 { return top + h - v/vMax*h }
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" role="img" font-family="system-ui, sans-serif" font-size="12">`, width, height)
	fmt.Fprintf(&b, `<title>%[1]s</title><text x="%[2]d" y="16" font-weight="bold">%[1]s</text>`, html.EscapeString(chartTitle), left)
	for _, f := range []float64{0, 0.5, 1} {
		fmt.Fprintf(&b, `<line x1="%d" x2="%.1f" y1="%.1f" y2="%.1f" stroke="#e2e8f0"/>`, left, left+w, y(f*vMax), y(f*vMax))
		fmt.Fprintf(&b, `<text x="%d" y="%.1f" text-anchor="end">%.0f</text>`, left-6, y(f*vMax)+4, f*vMax)
	}
	for _, f := range []float64{0, 0.25, 0.5, 0.75, 1} {
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="middle">%.1fs</text>`, x(f*tMax), top+h+16, f*tMax)
	}
	lx := float64(left) // the legend's next swatch
	for _, s := range c.Series {
		// A gauge holds its value until the next reading: draw steps.
		pts := fmt.Sprintf("%.1f,%.1f", x(s.Points[0][0]), y(0))
		prev := 0.0
		for _, p := range s.Points {
			pts += fmt.Sprintf(" %.1f,%.1f %.1f,%.1f", x(p[0]), y(prev), x(p[0]), y(p[1]))
			prev = p[1]
		}
		pts += fmt.Sprintf(" %.1f,%.1f", x(s.Points[len(s.Points)-1][0]), y(0))
		fmt.Fprintf(&b, `<polygon points="%s" fill="%s" stroke="%[2]s" stroke-width="1"><title>%s</title></polygon>`, pts, s.Color, s.Name)
		fmt.Fprintf(&b, `<rect x="%.1f" y="%d" width="12" height="12" fill="%s"/><text x="%.1f" y="%d">%s</text>`,
			lx, height-16, s.Color, lx+16, height-6, s.Name)
		lx += 24 + 8*float64(len(s.Name))
	}
	if c.End > 0 {
		fmt.Fprintf(&b, `<line x1="%.1f" x2="%.1f" y1="%d" y2="%.1f" stroke="#4a5568" stroke-dasharray="4 3"/>`, x(c.End), x(c.End), top, top+h)
		fmt.Fprintf(&b, `<text x="%.1f" y="%d" fill="#4a5568">dashed: the load ended; %s</text>`, lx+8, height-6, chartNote)
	}
	fmt.Fprintf(&b, `<line x1="%d" x2="%d" y1="%d" y2="%.1f" stroke="#4a5568"/>`, left, left, top, top+h)
	fmt.Fprintf(&b, `<line x1="%d" x2="%.1f" y1="%.1f" y2="%.1f" stroke="#4a5568"/></svg>`, left, left+w, top+h, top+h)
	return b.String()
}
