package main

import (
	"expvar"
	"fmt"
	"net/http"
)

// counters count what the menu service did with its requests, for GET
// /debug/vars: what the talk's first "next step" asked for — how many calls
// did we abort, and why?
type counters struct {
	requests         expvar.Int // every GET /menu
	abortedByTimeout expvar.Int // stock calls cancelled because they took longer than -timeout: 504
	abortedByClient  expvar.Int // stock calls cancelled because our own client left (or its deadline passed): 499
	failedFast       expvar.Int // answered 503 without calling the stock service at all
	vars             expvar.Map // the counters above, by name
}

// publish names the counters in c.vars.
func (c *counters) publish() {
	c.vars.Set("requests", &c.requests)
	c.vars.Set("aborted_by_timeout", &c.abortedByTimeout)
	c.vars.Set("aborted_by_client", &c.abortedByClient)
	c.vars.Set("failed_fast", &c.failedFast)
}

// handleVars serves GET /debug/vars in the format of expvar.Handler: the
// process's published variables (cmdline, memstats) plus this service's
// counters under "menu". As in step 01, the counters belong to the service,
// not the process: expvar.Publish would panic as soon as a second service
// published the same names — in the next test, or in the load-test lab.
func (c *counters) handleVars(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	fmt.Fprintf(w, "{\n")
	expvar.Do(func(kv expvar.KeyValue) {
		fmt.Fprintf(w, "%q: %s,\n", kv.Key, kv.Value)
	})
	fmt.Fprintf(w, "%q: %s\n}\n", "menu", &c.vars)
}
