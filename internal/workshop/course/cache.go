package course

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"

	"github.com/icecreamcorp/go-cancellation-workshop/internal/gotest"
)

// A Cache keeps step results by hash, in a folder of the runner's state
// (StateDir).
type Cache struct {
	Dir string // "" keeps nothing
}

// ResultsCache is the cache of the clone at root, shared by its worktrees:
// the runner's and the lab's.
func ResultsCache(ctx context.Context, root string) Cache {
	return Cache{Dir: filepath.Join(StateDir(ctx, root), "results")}
}

// get reads the entry of a kind ("status", "vet") kept for hash into v.
func (c Cache) get(kind, hash string, v any) bool {
	if c.Dir == "" {
		return false
	}
	data, err := os.ReadFile(filepath.Join(c.Dir, kind, hash+".json"))
	return err == nil && json.Unmarshal(data, v) == nil
}

// put keeps v as the entry of a kind for hash. A cache that cannot be
// written is no error: the next overview runs the tests again.
func (c Cache) put(kind, hash string, v any) {
	if c.Dir == "" || hash == "" {
		return
	}
	file := filepath.Join(c.Dir, kind, hash+".json")
	data, err := json.Marshal(v)
	if err != nil || os.MkdirAll(filepath.Dir(file), 0o755) != nil {
		return
	}
	if os.WriteFile(file+".tmp", data, 0o644) == nil {
		_ = os.Rename(file+".tmp", file)
	}
}

// Load returns the cached status of the step whose files hash to hash.
func (c Cache) Load(hash string) (*StepStatus, bool) {
	var st StepStatus
	if !c.get("status", hash, &st) || st.Hash != hash {
		return nil, false
	}
	return &st, true
}

// Store keeps a step's status.
func (c Cache) Store(st *StepStatus) { c.put("status", st.Hash, st) }

// Finished reports whether the step whose files hash to hash is done as far
// as the cache knows: its tasks pass and go vet was clean. A step whose vet
// has not run is not.
func (c Cache) Finished(hash string) bool {
	st, ok := c.Load(hash)
	if !ok || !st.TasksDone() {
		return false
	}
	vet, ok := c.loadVet(hash)
	return ok && vet == ""
}

// vetVerdict is what go vet said of the step whose files hash to Hash.
type vetVerdict struct {
	Hash   string
	Output string // "" when vet is clean
}

// loadVet returns the cached complaint of go vet about the step whose files
// hash to hash ("" when vet was clean).
func (c Cache) loadVet(hash string) (string, bool) {
	var v vetVerdict
	ok := c.get("vet", hash, &v) && v.Hash == hash
	return v.Output, ok
}

// runVet runs go vet (every analyzer) on a step, whatever the cache holds,
// and caches its complaint ("" when clean) by hash.
func runVet(ctx context.Context, g gotest.Go, root string, step Step, hash string, cache Cache) (string, error) {
	g.Dir = root
	stdout, stderr, err := g.Run(ctx, "vet", "./"+step.Name)
	if ctx.Err() != nil {
		return "", ctx.Err()
	}
	out := ""
	if err != nil {
		if out = strings.TrimSpace(stdout + stderr); out == "" {
			out = err.Error()
		}
	}
	cache.put("vet", hash, vetVerdict{hash, out})
	return out, nil
}
