package course

// What reset replaces or deletes is kept first, in the runner's state folder
// (StateDir), so that `reset -undo STEP` can bring it back: one folder per
// reset, under reset/<step>/, newest last.

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Kept is what one reset kept of a step.
type Kept struct {
	Dir     string         `json:"-"` // the folder it is kept in
	Step    string         `json:"step"`
	Ref     string         `json:"ref"`  // the starter's commit-ish
	Time    time.Time      `json:"time"` // when the reset ran
	Path    string         `json:"path"` // the step's folder, relative to RepoDir
	Saved   []string       `json:"saved"`
	Absent  []string       `json:"absent"` // restored files that did not exist before: undo deletes them
	Hints   map[string]int `json:"hints,omitempty"`
	RepoDir string         `json:"-"`
}

const keptFile = "kept.json"

// Keep copies every file the plan would replace or delete into a new folder
// under stateDir/reset/<step>, with the hints shown for the step (hints),
// before Apply changes anything.
func (p *ResetPlan) Keep(stateDir string, hints map[string]int) (*Kept, error) {
	if stateDir == "" {
		return nil, errors.New("no folder to keep the files in")
	}
	k := &Kept{Step: p.Step.Name, Ref: p.Ref, Time: time.Now(), Path: p.Path, Hints: hints, RepoDir: p.RepoDir}
	base := filepath.Join(stateDir, "reset", p.Step.Name)
	if err := os.MkdirAll(base, 0o755); err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp(base, k.Time.UTC().Format("20060102T150405Z-"))
	if err != nil {
		return nil, err
	}
	k.Dir = dir
	for _, name := range slices.Concat(p.Restore, p.Delete) {
		name = strings.TrimSuffix(name, "/")
		if !p.inStep(name) {
			os.RemoveAll(dir)
			return nil, fmt.Errorf("refusing to keep %q: it is outside %s", name, p.Path)
		}
		src := filepath.Join(p.RepoDir, filepath.FromSlash(name))
		if _, err := os.Lstat(src); errors.Is(err, fs.ErrNotExist) {
			k.Absent = append(k.Absent, name)
			continue
		}
		if err := copyTree(src, filepath.Join(dir, "files", filepath.FromSlash(name))); err != nil {
			os.RemoveAll(dir)
			return nil, fmt.Errorf("keeping %s: %w", name, err)
		}
		k.Saved = append(k.Saved, name)
	}
	data, err := json.MarshalIndent(k, "", "  ")
	if err == nil {
		err = os.WriteFile(filepath.Join(dir, keptFile), data, 0o644)
	}
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	return k, nil
}

// LastKept returns what the newest reset of step kept, or nil if no reset
// of it is kept. repoDir is the git clone's top folder.
func LastKept(stateDir, step, repoDir string) (*Kept, error) {
	base := filepath.Join(stateDir, "reset", step)
	entries, err := os.ReadDir(base)
	if errors.Is(err, fs.ErrNotExist) || stateDir == "" {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	for i := len(entries) - 1; i >= 0; i-- { // names start with the time: newest last
		dir := filepath.Join(base, entries[i].Name())
		data, err := os.ReadFile(filepath.Join(dir, keptFile))
		if err != nil {
			continue // a reset that did not finish keeping: not one to undo
		}
		k := &Kept{Dir: dir, RepoDir: repoDir}
		if err := json.Unmarshal(data, k); err != nil {
			return nil, fmt.Errorf("%s: %w", filepath.Join(dir, keptFile), err)
		}
		if k.Step != step {
			return nil, fmt.Errorf("%s: kept for step %q, not %s", dir, k.Step, step)
		}
		return k, nil
	}
	return nil, nil
}

// Undo puts back what the reset kept: the files it replaced or deleted, as
// they were, and removes those it created. Then the kept folder goes.
func (k *Kept) Undo() error {
	p := &ResetPlan{Path: k.Path}
	for _, name := range slices.Concat(k.Saved, k.Absent) {
		if !p.inStep(name) {
			return fmt.Errorf("refusing to undo %q: it is outside %s", name, k.Path)
		}
	}
	for _, name := range slices.Concat(k.Absent, k.Saved) {
		if err := os.RemoveAll(filepath.Join(k.RepoDir, filepath.FromSlash(name))); err != nil {
			return err
		}
	}
	for _, name := range k.Saved {
		if err := copyTree(filepath.Join(k.Dir, "files", filepath.FromSlash(name)), filepath.Join(k.RepoDir, filepath.FromSlash(name))); err != nil {
			return fmt.Errorf("bringing back %s: %w", name, err)
		}
	}
	return os.RemoveAll(k.Dir)
}

// copyTree copies a file, a link or a whole folder from src to dst, keeping
// modes; dst must not exist.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		to := filepath.Join(dst, rel)
		info, err := d.Info()
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			return err
		}
		switch {
		case d.IsDir():
			return os.Mkdir(to, info.Mode().Perm()|0o700)
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(path)
			if err != nil {
				return err
			}
			return os.Symlink(target, to)
		case !info.Mode().IsRegular():
			return nil // a socket or a pipe: nothing a learner's work is in
		}
		in, err := os.Open(path)
		if err != nil {
			return err
		}
		defer in.Close()
		out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, info.Mode().Perm())
		if err != nil {
			return err
		}
		if _, err := io.Copy(out, in); err != nil {
			out.Close()
			return err
		}
		return out.Close()
	})
}
