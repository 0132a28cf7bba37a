package load

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/icecreamcorp/go-cancellation-workshop/internal/workshop/course"
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

// verdict is how the report prints the goal's outcome.
func (g Goal) verdict() string {
	switch {
	case !g.Judged:
		return "not judged"
	case g.Met:
		return "met"
	}
	return "NOT met"
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
// fixed costs of a request weigh more against a shorter timeout, so at any
// other scale they are measured but not judged. A version built from an
// unfinished step (-own) has none of its goals judged.
func goals(r *Report) []Goal {
	var gs []Goal
	add := func(res *Result, atScale1 bool, g Goal) {
		switch {
		case len(res.Unfinished) > 0:
			var names []string
			for _, u := range res.Unfinished {
				name, _, _ := strings.Cut(u, ":")
				names = append(names, name)
			}
			g.NotJudged = "built from your unfinished " + strings.Join(names, " and ")
		case atScale1 && r.Setup.Scale != 1:
			g.NotJudged = fmt.Sprintf("stated for -scale 1, this run -scale %g", r.Setup.Scale)
		default:
			g.Judged = true
		}
		gs = append(gs, g)
	}
	timeout := float64(r.Setup.Timeout) / float64(time.Millisecond)
	if v3 := r.result("v3"); v3 != nil && v3.Requests > 0 {
		p99, top := v3.Latency.P99/timeout, v3.Latency.Max/timeout
		add(v3, true, Goal{What: "v3 p99 latency", Want: "≤ 1.03 × timeout", Got: fmt.Sprintf("%.3f × timeout (%s)", p99, ms(v3.Latency.P99)), Met: p99 <= 1.03})
		add(v3, true, Goal{What: "v3 max latency", Want: "≤ 1.06 × timeout", Got: fmt.Sprintf("%.3f × timeout (%s)", top, ms(v3.Latency.Max)), Met: top <= 1.06})
	}
	if v2 := r.result("v2"); v2 != nil {
		add(v2, false, Goal{What: "v2 stock work for callers who had left", Want: "≥ 80 %", Got: pct(v2.Waste.Share), Met: v2.Waste.Share >= 0.80})
	}
	if v3 := r.result("v3"); v3 != nil {
		add(v3, false, Goal{What: "v3 stock work for callers who had left", Want: "≤ 1 %", Got: pct(v3.Waste.Share), Met: v3.Waste.Share <= 0.01})
	}
	if h2 := r.result("v3-h2c"); h2 != nil && h2.Waste.Cancelled > 0 {
		add(h2, true, Goal{What: "v3 over h2c: connections per 1000 cancelled calls", Want: "≤ 5",
			Got: fmt.Sprintf("%.1f (%d for %d)", h2.ConnsPer1000C, h2.Conns, h2.Waste.Cancelled), Met: h2.ConnsPer1000C <= 5})
	}
	return gs
}

// unfinished lists the steps v is built from whose tasks do not all pass
// (-own), each with how far it is.
func (s Setup) unfinished(v version) []string {
	var u []string
	for _, dir := range []string{stockDir, v.Dir} {
		if why, ok := s.Unfinished[dir]; ok {
			u = append(u, dir+": "+why)
		}
	}
	return u
}

// answers are the statuses each version's menu gives, finished: anything
// else (a starter's 501, a 502 from a stock service that fails) means the
// figures are not that version's.
var answers = map[string][]int{
	"v1":           {200},
	"v2":           {200, 504},
	"v3":           {200, 504},
	"v3-fail-fast": {200, 503, 504},
	"v3-h2c":       {200, 504},
}

// crossChecks returns a warning for each figure of the run that does not
// hold together, so that no table is read as the version it names when it
// is not: answers a finished menu of that version never gives (more than
// 1 % of them), and, for a menu that never hangs up on the stock service,
// calls outliving its deadline that do not match its 504s (the reading of
// "callers who had left" rests on that match).
func crossChecks(r *Report) []string {
	var warns []string
	for _, res := range r.Results {
		want := answers[res.Version]
		odd, n := map[int]int{}, 0
		for code, count := range res.Statuses {
			c, _ := strconv.Atoi(code)
			n += count
			if !slices.Contains(want, c) {
				odd[c] += count
			}
		}
		if bad := sum(odd); bad > 0 && 100*bad > n {
			warns = append(warns, fmt.Sprintf("%s: %d of %d answers were %s; a finished %s answers only %s — these figures are not %s's",
				res.Version, bad, n, statusMix(odd), res.Version, joinInts(want), res.Version))
		}
		if res.Version == "v1" || res.Waste.Cancelled > 0 || res.Requests == 0 {
			continue
		}
		past, n504 := res.Waste.PastDeadline, res.Statuses["504"]
		if d := max(past-n504, n504-past); d > max(10, max(past, n504)/20) {
			warns = append(warns, fmt.Sprintf("%s: %d calls outlived the menu's %v timeout, but it answered %d × 504 — its stock work for callers who had left (%s) assumes they match",
				res.Version, past, r.Setup.Timeout, n504, pct(res.Waste.Share)))
		}
	}
	return warns
}

func sum(m map[int]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

// statusMix lists statuses and their counts, by status: "200 × 187, 504 × 1932".
func statusMix(m map[int]int) string {
	var parts []string
	for _, code := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, fmt.Sprintf("%d × %d", code, m[code]))
	}
	return strings.Join(parts, ", ")
}

func joinInts(xs []int) string {
	var s []string
	for _, x := range xs {
		s = append(s, strconv.Itoa(x))
	}
	return strings.Join(s, ", ")
}

// statusCounts is a result's statuses by number.
func statusCounts(res *Result) map[int]int {
	m := map[int]int{}
	for code, n := range res.Statuses {
		c, _ := strconv.Atoi(code)
		m[c] += n
	}
	return m
}

// ownProgress says, for each step folder the lab builds with -own whose
// tasks do not all pass, how far it is: "0 of 3 tasks", or why its tests
// do not run. It asks the runner's course logic, which answers from the
// runner's cache when nothing changed, or runs the steps' tests once.
var ownProgress = func(ctx context.Context, root string, dirs []string, progress func(string)) (map[string]string, error) {
	all, err := course.Steps(root)
	if err != nil {
		return nil, err
	}
	var steps []course.Step
	for _, s := range all {
		if slices.Contains(dirs, s.Name) {
			steps = append(steps, s)
		}
	}
	sts, err := course.Statuses(ctx, course.Go{Dir: root}, root, steps, course.ResultsCache(ctx, root), progress)
	if err != nil {
		return nil, err
	}
	unfinished := map[string]string{}
	for i, st := range sts {
		if st.TasksDone() {
			continue
		}
		why := fmt.Sprintf("%d of %d tasks", st.Done(), len(st.Tasks))
		if st.Problem != "" {
			first, _, _ := strings.Cut(st.Problem, "\n")
			why = strings.TrimSuffix(first, ":")
		}
		what := "your unfinished step"
		if st.Done() == 0 {
			what = "your starter"
		}
		unfinished[steps[i].Name] = why + " — measuring " + what
	}
	return unfinished, nil
}
