package course

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
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

func (c Cache) file(hash string) string {
	return filepath.Join(c.Dir, "status", hash+".json")
}

// Load returns the cached status of the step whose files hash to hash.
func (c Cache) Load(hash string) (*StepStatus, bool) {
	if c.Dir == "" {
		return nil, false
	}
	data, err := os.ReadFile(c.file(hash))
	if err != nil {
		return nil, false
	}
	var st StepStatus
	if json.Unmarshal(data, &st) != nil || st.Hash != hash {
		return nil, false
	}
	return &st, true
}

// Store keeps a step's status. A cache that cannot be written is no error:
// the next overview runs the tests again.
func (c Cache) Store(st *StepStatus) {
	if c.Dir == "" || st.Hash == "" {
		return
	}
	data, err := json.Marshal(st)
	if err != nil {
		return
	}
	if os.MkdirAll(filepath.Dir(c.file(st.Hash)), 0o755) != nil {
		return
	}
	tmp := c.file(st.Hash) + ".tmp"
	if os.WriteFile(tmp, data, 0o644) == nil {
		_ = os.Rename(tmp, c.file(st.Hash))
	}
}

// A VetVerdict is what go vet said of a step's files.
type VetVerdict struct {
	Hash   string
	Output string // "" when vet is clean
}

func (c Cache) vetFile(hash string) string {
	return filepath.Join(c.Dir, "vet", hash+".json")
}

// LoadVet returns the cached verdict of go vet on the step whose files hash
// to hash.
func (c Cache) LoadVet(hash string) (VetVerdict, bool) {
	if c.Dir == "" {
		return VetVerdict{}, false
	}
	data, err := os.ReadFile(c.vetFile(hash))
	if err != nil {
		return VetVerdict{}, false
	}
	var v VetVerdict
	if json.Unmarshal(data, &v) != nil || v.Hash != hash {
		return VetVerdict{}, false
	}
	return v, true
}

// StoreVet keeps go vet's verdict on a step; like Store, a failure is no error.
func (c Cache) StoreVet(v VetVerdict) {
	if c.Dir == "" || v.Hash == "" {
		return
	}
	data, err := json.Marshal(v)
	if err != nil {
		return
	}
	if os.MkdirAll(filepath.Dir(c.vetFile(v.Hash)), 0o755) != nil {
		return
	}
	tmp := c.vetFile(v.Hash) + ".tmp"
	if os.WriteFile(tmp, data, 0o644) == nil {
		_ = os.Rename(tmp, c.vetFile(v.Hash))
	}
}

// Vet runs go vet (every analyzer) on a step and caches its verdict by hash.
func Vet(ctx context.Context, g Go, root string, step Step, hash string, cache Cache) (VetVerdict, error) {
	if v, ok := cache.LoadVet(hash); ok {
		return v, nil
	}
	return runVet(ctx, g, root, step, hash, cache)
}

// runVet runs go vet on a step, whatever the cache holds, and caches its verdict.
func runVet(ctx context.Context, g Go, root string, step Step, hash string, cache Cache) (VetVerdict, error) {
	g.Dir = root
	stdout, stderr, err := g.Run(ctx, "vet", "./"+step.Name)
	if ctx.Err() != nil {
		return VetVerdict{}, ctx.Err()
	}
	v := VetVerdict{Hash: hash}
	if err != nil {
		v.Output = strings.TrimSpace(stdout + stderr)
		if v.Output == "" {
			v.Output = err.Error()
		}
	}
	cache.StoreVet(v)
	return v, nil
}
