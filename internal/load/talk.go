package load

// TalkFigures are the figures of the talk's autocannon runs: 60 s, 100
// connections, a stock service delaying 0–10 s, menus v2 and v3 giving up
// after 1 s. The talk printed no 2xx split for v1.
type TalkFigures struct {
	Latency   Latency `json:"latency"`
	ReqPerSec float64 `json:"req_per_s"` // autocannon's average of per-second samples
	OK        int     `json:"2xx,omitempty"`
	NotOK     int     `json:"non_2xx,omitempty"`
}

// talk is the talk's figures, by version.
var talk = map[string]TalkFigures{
	"v1": {
		Latency:   Latency{P2_5: 244, P50: 4862, P97_5: 9718, P99: 9900, Avg: 4898.42, Stdev: 2941.22, Max: 10000},
		ReqPerSec: 19.15,
	},
	"v2": {
		Latency:   Latency{P2_5: 253, P50: 1004, P97_5: 1024, P99: 1146, Avg: 957.63, Stdev: 176.57, Max: 1217},
		ReqPerSec: 103.47, OK: 612, NotOK: 5596,
	},
	"v3": {
		Latency:   Latency{P2_5: 282, P50: 1006, P97_5: 1116, P99: 1167, Avg: 967.9, Stdev: 172.98, Max: 1251},
		ReqPerSec: 102.57, OK: 614, NotOK: 5540,
	},
}

// scaled is the talk's figures with every duration multiplied by scale:
// what the talk's services would have shown with a timeout of scale × 1 s
// and delays of up to scale × 10 s. Counts depend on the run's length and
// are left out.
func (f TalkFigures) scaled(scale float64) TalkFigures {
	l := f.Latency
	return TalkFigures{
		Latency: Latency{
			P2_5: l.P2_5 * scale, P50: l.P50 * scale, P97_5: l.P97_5 * scale, P99: l.P99 * scale,
			Avg: l.Avg * scale, Stdev: l.Stdev * scale, Max: l.Max * scale,
		},
		ReqPerSec: f.ReqPerSec / scale,
	}
}
