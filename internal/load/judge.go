package load

import (
	"context"
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/icecreamcorp/go-cancellation-workshop/internal/gotest"
)

// Goal is one of the lab's stated targets, and whether this run met it. A
// goal is judged only when the run measured what it is stated for: the
// versions as built from finished steps, at the scale it names.
type Goal struct {
	What      string `json:"what"`
	Want      string `json:"want"`
	Got       string `json:"got"`
	Met       bool   `json:"met"`
	Judged    bool   `json:"judged"`
	NotJudged string `json:"not_judged,omitempty"` // why not
}

func (r *Report) result(name string) *Result {
	for _, res := range r.Results {
		if res.Version == name {
			return res
		}
	}
	return nil
}

// goals checks the run against the workshop's targets, for the versions it
// measured. The latency and h2c goals are stated for -scale 1: below it the
// fixed costs of a request weigh more against a shorter timeout.
func goals(r *Report) []Goal {
	var gs []Goal
	add := func(res *Result, atScale1 bool, g Goal) {
		switch {
		case len(res.Unfinished) > 0:
			g.NotJudged = "built from your unfinished " + strings.Join(res.Unfinished, " and ")
		case atScale1 && r.Setup.Scale != 1:
			g.NotJudged = fmt.Sprintf("stated for -scale 1, this run -scale %g", r.Setup.Scale)
		default:
			g.Judged = true
		}
		gs = append(gs, g)
	}
	timeout := float64(r.Setup.Timeout) / float64(time.Millisecond)
	v2, v3, h2 := r.result("v2"), r.result("v3"), r.result("v3-h2c")
	if v3 != nil && v3.Requests > 0 {
		p99, top := v3.Latency.P99/timeout, v3.Latency.Max/timeout
		add(v3, true, Goal{What: "v3 p99 latency", Want: "≤ 1.03 × timeout", Got: fmt.Sprintf("%.3f × timeout (%s)", p99, ms(v3.Latency.P99)), Met: p99 <= 1.03})
		add(v3, true, Goal{What: "v3 max latency", Want: "≤ 1.06 × timeout", Got: fmt.Sprintf("%.3f × timeout (%s)", top, ms(v3.Latency.Max)), Met: top <= 1.06})
	}
	if v2 != nil {
		add(v2, false, Goal{What: "v2 stock work for callers who had left", Want: "≥ 80 %", Got: pct(v2.Waste.Share), Met: v2.Waste.Share >= 0.80})
	}
	if v3 != nil {
		add(v3, false, Goal{What: "v3 stock work for callers who had left", Want: "≤ 1 %", Got: pct(v3.Waste.Share), Met: v3.Waste.Share <= 0.01})
	}
	if h2 != nil && h2.Waste.Cancelled > 0 {
		add(h2, true, Goal{What: "v3 over h2c: connections per 1000 cancelled calls", Want: "≤ 5",
			Got: fmt.Sprintf("%.1f (%d for %d)", h2.ConnsPer1000C, h2.Conns, h2.Waste.Cancelled), Met: h2.ConnsPer1000C <= 5})
	}
	return gs
}

// crossChecks returns a warning for each figure of the run that does not
// hold together (README.md, "It never flatters"), so that no table is read
// as the version it names when it is not.
func crossChecks(r *Report) []string {
	var warns []string
	for _, res := range r.Results {
		want := versions[slices.IndexFunc(versions, func(v version) bool { return v.Name == res.Version })].Answers
		odd, bad, n := map[int]int{}, 0, 0
		for code, count := range res.Statuses {
			n += count
			if !slices.Contains(want, code) {
				odd[code], bad = count, bad+count
			}
		}
		if 100*bad > n {
			warns = append(warns, fmt.Sprintf("%s: %d of %d answers were %s; a finished %s answers only %s — these figures are not %s's",
				res.Version, bad, n, statusMix(odd), res.Version, strings.ReplaceAll(strings.Trim(fmt.Sprint(want), "[]"), " ", ", "), res.Version))
		}
		if res.Version == "v1" || res.Waste.Cancelled > 0 || res.Requests == 0 {
			continue
		}
		past, n504 := res.Waste.PastDeadline, res.Statuses[504]
		if d := max(past-n504, n504-past); d > max(10, max(past, n504)/20) {
			warns = append(warns, fmt.Sprintf("%s: %d calls outlived the menu's %v timeout, but it answered %d × 504 — its stock work for callers who had left (%s) assumes they match",
				res.Version, past, r.Setup.Timeout, n504, pct(res.Waste.Share)))
		}
	}
	return warns
}

// statusMix lists statuses and their counts, by status: "200 × 187, 504 × 1932".
func statusMix(m map[int]int) string {
	var parts []string
	for _, code := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, fmt.Sprintf("%d × %d", code, m[code]))
	}
	return strings.Join(parts, ", ")
}

// ownProgress runs the tests of the step folders dirs of root once (-own;
// go test's cache answers for a step that passed and has not changed since)
// and says, for each whose tests do not all pass, how far it is: the
// figures measured are not those of the version it is named after.
var ownProgress = func(ctx context.Context, root string, dirs []string) (map[string]string, error) {
	args := []string{"-timeout", "2m"}
	for _, dir := range dirs {
		args = append(args, "./"+dir)
	}
	runs, _ := gotest.Go{Dir: root}.TestJSON(ctx, nil, args...)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	unfinished := map[string]string{}
	for _, dir := range dirs {
		passed, n := 0, 0
		i := slices.IndexFunc(runs, func(r *gotest.TestRun) bool { return path.Base(r.Package) == dir })
		if i >= 0 && runs[i].Result == "pass" {
			continue
		}
		if i >= 0 {
			for _, test := range runs[i].TopLevel() { // a subtest's verdict is its test's too
				switch runs[i].Outcome[test] {
				case "pass":
					passed, n = passed+1, n+1
				case "fail":
					n++
				}
			}
		}
		switch {
		case n == 0:
			unfinished[dir] = "its tests did not run (go test ./" + dir + " says why) — measuring it as it is"
		case passed == 0:
			unfinished[dir] = fmt.Sprintf("0 of %d tests pass — measuring your starter", n)
		default:
			unfinished[dir] = fmt.Sprintf("%d of %d tests pass — measuring your unfinished step", passed, n)
		}
	}
	return unfinished, nil
}
