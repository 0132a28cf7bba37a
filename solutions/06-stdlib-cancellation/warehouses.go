package platform

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"

	"golang.org/x/sync/errgroup"
)

// Levels is how many units of each flavour are in stock, by flavour name.
type Levels map[string]int

// askStock asks one stock service for its levels: GET url, a JSON body of
// {"stock":[{"name":…,"stock":…}…]}. The request ends the moment ctx does:
// in Go, every call of an HTTP client or a cloud SDK takes a context.
func askStock(ctx context.Context, client *http.Client, url string) (Levels, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, err // says which URL, and wraps ctx's error if ctx ended
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: answered %s", url, resp.Status)
	}
	var body struct {
		Stock []struct {
			Name  string `json:"name"`
			Stock int    `json:"stock"`
		} `json:"stock"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&body); err != nil {
		return nil, fmt.Errorf("GET %s: %w", url, err)
	}
	levels := make(Levels, len(body.Stock))
	for _, f := range body.Stock {
		levels[f.Name] += f.Stock
	}
	return levels, nil
}

// TotalStock asks the stock service of every warehouse in urls for its
// levels, at most limit at a time, and adds them up. A limit below 1 is an
// error.
//
// The first warehouse that fails ends the count: the requests still running
// to the other warehouses are cancelled, and TotalStock returns that first
// failure. When ctx ends, every request ends with it, and TotalStock returns
// an error that wraps context.Cause(ctx).
func TotalStock(ctx context.Context, client *http.Client, urls []string, limit int) (Levels, error) {
	// At a limit of 0 Group.Go would wait for a free slot for ever (and a
	// negative one means no limit at all).
	if limit < 1 {
		return nil, fmt.Errorf("total stock: a limit of %d; want 1 or more", limit)
	}
	// The group's context ends the moment one of its functions fails (or
	// when Wait returns). Every request must be made with it, not with ctx:
	// a request made with ctx would run on, for nobody, after a sibling
	// failed. A plain sync.WaitGroup has no such context at all.
	g, gctx := errgroup.WithContext(ctx)
	// At most limit requests at once: Go waits for a free slot.
	g.SetLimit(limit)

	// One slot per warehouse, each written by one goroutine only: no lock
	// needed, and Wait makes the writes visible to us.
	found := make([]Levels, len(urls))
	for i, url := range urls {
		// Go blocks while limit requests are running, and it looks at no
		// context while it waits. When it returns, a sibling may have
		// failed in the meantime, or the caller may have left. (TryGo
		// never waits: it starts f only if a slot is free now, for a
		// caller who would rather skip a warehouse than queue for it.)
		g.Go(func() error {
			// So look before doing anything. http.Client.Do would also
			// return at once on a context that has ended; work that costs
			// something before its first context-aware call would not.
			// Return the cause, not gctx.Err(): "context canceled" says
			// nothing of why, and the group's context carries the caller's
			// reason (or the first failure, which Wait returns anyway).
			if gctx.Err() != nil {
				return context.Cause(gctx)
			}
			levels, err := askStock(gctx, client, url)
			found[i] = levels
			return err
		})
	}
	// Wait for every goroutine, even after a failure: returning earlier
	// would leave them running and race on found.
	if err := g.Wait(); err != nil {
		return nil, err
	}
	total := Levels{}
	for _, levels := range found {
		for name, n := range levels {
			total[name] += n
		}
	}
	return total, nil
}
