package course

// What reset replaces or deletes is kept first, in the runner's state folder
// (StateDir), so that `reset -undo STEP` can bring it back: one folder per
// reset, under reset/<step>/, newest last.

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// Kept is what one reset kept of a step.
type Kept struct {
	Dir     string            `json:"-"` // the folder it is kept in
	Step    string            `json:"step"`
	Ref     string            `json:"ref"`    // the starter's commit-ish
	Time    time.Time         `json:"time"`   // when the reset ran
	Path    string            `json:"path"`   // the step's folder, relative to RepoDir
	Saved   map[string]string `json:"saved"`  // each file kept, and the sum of its kept copy (treeSum)
	Absent  []string          `json:"absent"` // restored files that did not exist before: undo deletes them
	Hints   map[string]int    `json:"hints,omitempty"`
	RepoDir string            `json:"-"`
}

const keptFile = "kept.json"

// Keepable refuses a plan with a name that would not come back as it is
// from kept.json: JSON holds UTF-8 text only.
func (p *ResetPlan) Keepable() error {
	for _, name := range slices.Concat(p.Restore, p.Delete) {
		if !utf8.ValidString(name) {
			return fmt.Errorf("%q: its name is not UTF-8, so reset could not keep it to bring back: rename it, or move it out of %s/", name, p.Path)
		}
		if !p.inStep(name) {
			return fmt.Errorf("refusing to keep %q: it is outside %s", name, p.Path)
		}
	}
	return nil
}

// Keep copies every file the plan would replace or delete into a new folder
// under stateDir/reset/<step>, with the hints shown for the step (hints),
// before Apply changes anything.
func (p *ResetPlan) Keep(stateDir string, hints map[string]int) (*Kept, error) {
	if stateDir == "" {
		return nil, errors.New("no folder to keep the files in")
	}
	if err := p.Keepable(); err != nil {
		return nil, err
	}
	k := &Kept{Step: p.Step.Name, Ref: p.Ref, Time: time.Now(), Path: p.Path, Saved: map[string]string{}, Hints: hints, RepoDir: p.RepoDir}
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
		src := filepath.Join(p.RepoDir, filepath.FromSlash(name))
		if _, err := os.Lstat(src); errors.Is(err, fs.ErrNotExist) {
			k.Absent = append(k.Absent, name)
			continue
		}
		kept := filepath.Join(dir, "files", filepath.FromSlash(name))
		err := copyTree(src, kept)
		if err == nil {
			k.Saved[name], err = treeSum(kept)
		}
		if err != nil {
			os.RemoveAll(dir)
			return nil, fmt.Errorf("keeping %s: %w", name, err)
		}
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
// of it is kept. It trusts nothing it reads back: the step's folder comes
// from the step list and git (root is the module's folder), and a kept.json
// that does not parse, is another step's, names a file outside the step's
// folder or one whose kept copy is missing or changed is refused whole.
func LastKept(ctx context.Context, stateDir, root string, step Step) (*Kept, error) {
	base := filepath.Join(stateDir, "reset", step.Name)
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
		k, err := checkKept(ctx, dir, data, root, step)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", filepath.Join(dir, keptFile), err)
		}
		return k, nil
	}
	return nil, nil
}

func checkKept(ctx context.Context, dir string, data []byte, root string, step Step) (*Kept, error) {
	repoDir, rel, err := stepPath(ctx, root, step)
	if err != nil {
		return nil, err
	}
	k := &Kept{Dir: dir, RepoDir: repoDir}
	if err := json.Unmarshal(data, k); err != nil {
		return nil, err
	}
	if k.Step != step.Name || k.Path != rel {
		return nil, fmt.Errorf("kept for step %q in %q, not %s in %s", k.Step, k.Path, step.Name, rel)
	}
	p := &ResetPlan{Path: rel}
	for _, name := range slices.Concat(k.Absent, slices.Collect(maps.Keys(k.Saved))) {
		if !p.inStep(name) {
			return nil, fmt.Errorf("%q is not a file of %s/", name, rel)
		}
		// No folder on the way may be a link: undo would delete through it.
		for d := path.Dir(name); d != rel; d = path.Dir(d) {
			if info, err := os.Lstat(filepath.Join(repoDir, filepath.FromSlash(d))); err == nil && info.Mode()&fs.ModeSymlink != 0 {
				return nil, fmt.Errorf("%q is under %s, a link", name, d)
			}
		}
	}
	for name, sum := range k.Saved {
		if got, err := treeSum(filepath.Join(dir, "files", filepath.FromSlash(name))); err != nil || got != sum {
			return nil, fmt.Errorf("the kept copy of %q is missing or changed since the reset", name)
		}
	}
	return k, nil
}

// Undo puts back what the reset kept (LastKept checked all of it): the
// files it replaced or deleted, as they were, and removes those it created.
// Then the kept folder goes. If it stops half way, running it again ends
// the job: the kept copies stay until the end.
func (k *Kept) Undo() error {
	saved := slices.Sorted(maps.Keys(k.Saved))
	for _, name := range slices.Concat(k.Absent, saved) {
		if err := os.RemoveAll(filepath.Join(k.RepoDir, filepath.FromSlash(name))); err != nil {
			return err
		}
	}
	for _, name := range saved {
		if err := copyTree(filepath.Join(k.Dir, "files", filepath.FromSlash(name)), filepath.Join(k.RepoDir, filepath.FromSlash(name))); err != nil {
			return fmt.Errorf("bringing back %s: %w", name, err)
		}
	}
	return os.RemoveAll(k.Dir)
}

// treeSum hashes a file, a link or a whole folder: names, modes, contents.
func treeSum(root string) (string, error) {
	h := sha256.New()
	err := filepath.WalkDir(root, func(name string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, name)
		fmt.Fprintf(h, "%q %v\n", filepath.ToSlash(rel), info.Mode())
		if d.Type()&fs.ModeSymlink != 0 {
			target, err := os.Readlink(name)
			fmt.Fprintf(h, "%q\n", target)
			return err
		}
		if !info.Mode().IsRegular() {
			return nil
		}
		f, err := os.Open(name)
		if err != nil {
			return err
		}
		defer f.Close()
		n, err := io.Copy(h, f)
		fmt.Fprintf(h, "\n%d\n", n)
		return err
	})
	return hex.EncodeToString(h.Sum(nil)), err
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
