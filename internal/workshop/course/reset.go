package course

// Resetting a step to its starter, with git, and undoing it. The starter is
// the step folder as the workshop's own branch has it (UpstreamRefs), not as
// the learner's last commit has it, which may hold their work. What reset
// replaces or deletes is kept first, in the runner's state folder (StateDir),
// one folder per reset under reset/<step>/, for `reset -undo STEP`.

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// UpstreamRefs are tried in order for the workshop's own version of a step.
var UpstreamRefs = []string{"upstream/HEAD", "upstream/main", "origin/HEAD", "origin/main", "origin/master"}

// A Reset is what resetting one step folder changes (PlanReset) and then,
// kept as kept.json, what its undo needs. Every name is relative to the git
// clone's top folder, with '/'.
type Reset struct {
	Step    string            `json:"step"`
	Ref     string            `json:"ref"`    // the commit-ish the starter comes from
	Path    string            `json:"path"`   // the step's folder
	Restore []string          `json:"-"`      // files that differ from the starter, or are missing
	Delete  []string          `json:"-"`      // files the starter does not have; an untracked folder ends in '/' and goes whole
	Time    time.Time         `json:"time"`   // when the reset ran
	Saved   map[string]string `json:"saved"`  // each file kept, and the sum of its kept copy (copyTree)
	Absent  []string          `json:"absent"` // restored files that did not exist before: undo deletes them
	Hints   map[string]int    `json:"hints,omitempty"`
	repo    string            // the clone's top folder
	dir     string            // the folder it is kept in
}

const keptFile = "kept.json"

func git(ctx context.Context, dir string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	out, err := cmd.Output()
	if exit, ok := err.(*exec.ExitError); ok && len(exit.Stderr) > 0 {
		err = errors.New(strings.TrimSpace(string(exit.Stderr))) // Output keeps git's stderr there
	}
	if err != nil {
		return "", fmt.Errorf("git %s: %v", strings.Join(args, " "), err)
	}
	return string(out), nil
}

// PlanReset works out what restoring a step's starter from ref would change;
// ref "" picks the first of UpstreamRefs that exists. root is the module's
// folder. It refuses, before anything changes, a name kept.json could not
// hold as it is (JSON holds UTF-8 text only) and one outside the step's
// folder (the folder itself, when git does not track it).
func PlanReset(ctx context.Context, root string, step Step, ref string) (*Reset, error) {
	repo, rel, err := stepPath(ctx, root, step)
	if err != nil {
		return nil, err
	}
	if ref == "" {
		if ref = upstreamRef(ctx, repo); ref == "" {
			return nil, fmt.Errorf("this clone has no remote branch of the workshop (upstream, origin): give -from a commit (git log --oneline -- %s lists them)", rel)
		}
	}
	if tree, err := git(ctx, repo, "ls-tree", ref+"^{commit}", "--", rel+"/"); err != nil || tree == "" {
		return nil, fmt.Errorf("%q is not a commit of this clone with a folder %s to restore it from", ref, rel)
	}
	p := &Reset{Step: step.Name, Ref: ref, Path: rel, repo: repo}
	// -z: each name exactly as it is, NUL-terminated. Without it git quotes
	// a name that is not plain ASCII or holds a quote ("caf\303\251.go").
	changed, err := git(ctx, repo, "diff", "-z", "--name-status", "--no-renames", ref, "--", rel+"/")
	if err != nil {
		return nil, err
	}
	// A status, then its name. A file the starter does not have (A: one the
	// learner committed) is not restored but deleted: git restore removes it.
	for f := names(changed); len(f) >= 2; f = f[2:] {
		if f[0] == "A" {
			p.Delete = append(p.Delete, f[1])
		} else {
			p.Restore = append(p.Restore, f[1])
		}
	}
	// --directory: an untracked folder (a nested repository among them) is
	// one name.
	untracked, err := git(ctx, repo, "ls-files", "-z", "--others", "--directory", "--", rel+"/")
	if err != nil {
		return nil, err
	}
	p.Delete = append(p.Delete, names(untracked)...)
	for _, name := range slices.Concat(p.Restore, p.Delete) {
		if !utf8.ValidString(name) {
			return nil, fmt.Errorf("%q: its name is not UTF-8, so reset could not keep it to bring back: rename it, or move it out of %s/", name, rel)
		}
		if !inStep(rel, name) {
			return nil, fmt.Errorf("refusing to keep %q: it is outside %s", name, rel)
		}
	}
	return p, nil
}

func upstreamRef(ctx context.Context, dir string) string {
	for _, r := range UpstreamRefs {
		if _, err := git(ctx, dir, "rev-parse", "--verify", "--quiet", r+"^{commit}"); err == nil {
			return r
		}
	}
	return ""
}

// names splits git's -z output into names, kept exactly: a name may end in
// a space.
func names(s string) []string {
	return slices.DeleteFunc(strings.Split(s, "\x00"), func(n string) bool { return n == "" })
}

// inStep reports whether name is a clean path inside the step's folder rel.
func inStep(rel, name string) bool {
	rest, ok := strings.CutPrefix(strings.TrimSuffix(name, "/"), rel+"/")
	return ok && path.Clean(rest) == rest && filepath.IsLocal(filepath.FromSlash(rest))
}

// stepPath returns the top folder of the git clone that holds the step, and
// the step's folder relative to it, with '/': from the step list and git,
// never from what the runner kept.
func stepPath(ctx context.Context, root string, step Step) (repo, rel string, err error) {
	dir, err := step.Resolve(root)
	if err != nil {
		return "", "", err
	}
	out, err := git(ctx, dir, "rev-parse", "--show-toplevel", "--show-prefix")
	if err != nil {
		return "", "", fmt.Errorf("reset takes the starter from git, in a clone of the workshop: %v", err)
	}
	repo, prefix, _ := strings.Cut(strings.TrimSuffix(out, "\n"), "\n")
	if prefix == "" {
		return "", "", fmt.Errorf("%s is not a folder inside the git clone %s", step.Dir, repo)
	}
	return filepath.Clean(repo), strings.TrimSuffix(prefix, "/"), nil
}

// Apply keeps every file the plan replaces or deletes, with the hints shown
// for the step, in a new folder under stateDir/reset/<step>; then it restores
// the starter's files and deletes the others. An error while keeping says
// nothing changed.
func (p *Reset) Apply(ctx context.Context, stateDir string, hints map[string]int) error {
	if err := p.keep(stateDir, hints); err != nil {
		return fmt.Errorf("nothing changed: %w", err)
	}
	if _, err := git(ctx, p.repo, "restore", "--source="+p.Ref, "--worktree", "--", p.Path+"/"); err != nil {
		return err
	}
	for _, f := range p.Delete {
		// RemoveAll: a folder goes whole; a link goes, not what it points to.
		if err := os.RemoveAll(filepath.Join(p.repo, filepath.FromSlash(f))); err != nil {
			return err
		}
	}
	return nil
}

func (p *Reset) keep(stateDir string, hints map[string]int) error {
	p.Time, p.Saved, p.Hints = time.Now(), map[string]string{}, hints
	base := filepath.Join(stateDir, "reset", p.Step)
	if err := os.MkdirAll(base, 0o755); err != nil {
		return err
	}
	// Named by the time to the nanosecond: sorted by name, newest last.
	dir, err := os.MkdirTemp(base, p.Time.UTC().Format("20060102T150405.000000000Z-"))
	if err != nil {
		return err
	}
	for _, name := range slices.Concat(p.Restore, p.Delete) {
		name = strings.TrimSuffix(name, "/")
		src := filepath.Join(p.repo, filepath.FromSlash(name))
		if _, err := os.Lstat(src); errors.Is(err, fs.ErrNotExist) {
			p.Absent = append(p.Absent, name)
			continue
		}
		kept := filepath.Join(dir, "files", filepath.FromSlash(name))
		_, err := copyTree(src, kept)
		if err == nil {
			p.Saved[name], err = copyTree(kept, "")
		}
		if err != nil {
			os.RemoveAll(dir)
			return fmt.Errorf("keeping %s: %w", name, err)
		}
	}
	data, err := json.MarshalIndent(p, "", "  ")
	if err == nil {
		err = os.WriteFile(filepath.Join(dir, keptFile), data, 0o644)
	}
	if err != nil {
		os.RemoveAll(dir)
	}
	return err
}

// LastKept returns what the newest reset of step kept, or nil if no reset
// of it is kept. It trusts nothing it reads back: a kept.json that fails one
// of checkKept's checks is refused whole.
func LastKept(ctx context.Context, stateDir, root string, step Step) (*Reset, error) {
	base := filepath.Join(stateDir, "reset", step.Name)
	entries, err := os.ReadDir(base)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	for _, e := range slices.Backward(entries) {
		dir := filepath.Join(base, e.Name())
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

func checkKept(ctx context.Context, dir string, data []byte, root string, step Step) (*Reset, error) {
	repo, rel, err := stepPath(ctx, root, step)
	if err != nil {
		return nil, err
	}
	k := &Reset{dir: dir, repo: repo}
	if err := json.Unmarshal(data, k); err != nil {
		return nil, err
	}
	if k.Step != step.Name || k.Path != rel {
		return nil, fmt.Errorf("kept for step %q in %q, not %s in %s", k.Step, k.Path, step.Name, rel)
	}
	for _, name := range slices.Concat(k.Absent, slices.Collect(maps.Keys(k.Saved))) {
		if !inStep(rel, name) {
			return nil, fmt.Errorf("%q is not a file of %s/", name, rel)
		}
		// No folder on the way may be a link: undo would delete through it.
		for d := path.Dir(name); d != rel; d = path.Dir(d) {
			if info, err := os.Lstat(filepath.Join(repo, filepath.FromSlash(d))); err == nil && info.Mode()&fs.ModeSymlink != 0 {
				return nil, fmt.Errorf("%q is under %s, a link", name, d)
			}
		}
	}
	for name, sum := range k.Saved {
		if got, err := copyTree(filepath.Join(dir, "files", filepath.FromSlash(name)), ""); err != nil || got != sum {
			return nil, fmt.Errorf("the kept copy of %q is missing or changed since the reset", name)
		}
	}
	return k, nil
}

// Undo puts back what the reset kept (LastKept checked all of it): the
// files it replaced or deleted, as they were, and removes those it created.
// Then the kept folder goes. If it stops half way, running it again ends
// the job: the kept copies stay until the end.
func (k *Reset) Undo() error {
	saved := slices.Sorted(maps.Keys(k.Saved))
	for _, name := range slices.Concat(k.Absent, saved) {
		if err := os.RemoveAll(filepath.Join(k.repo, filepath.FromSlash(name))); err != nil {
			return err
		}
	}
	for _, name := range saved {
		if _, err := copyTree(filepath.Join(k.dir, "files", filepath.FromSlash(name)), filepath.Join(k.repo, filepath.FromSlash(name))); err != nil {
			return fmt.Errorf("bringing back %s: %w", name, err)
		}
	}
	return os.RemoveAll(k.dir)
}

// copyTree copies a file, a link or a whole folder from src to dst, which
// must not exist, keeping permissions; with dst "" it copies nothing. It
// returns src's sha256 over names, modes, link targets and contents.
func copyTree(src, dst string) (string, error) {
	h := sha256.New()
	if dst != "" {
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return "", err
		}
	}
	err := filepath.WalkDir(src, func(from string, d fs.DirEntry, err error) error {
		var info fs.FileInfo
		if err == nil {
			info, err = d.Info()
		}
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, from)
		fmt.Fprintf(h, "%q %v\n", filepath.ToSlash(rel), info.Mode())
		var target string
		var data []byte
		switch {
		case info.Mode()&fs.ModeSymlink != 0:
			target, err = os.Readlink(from)
			fmt.Fprintf(h, "%q\n", target)
		case info.Mode().IsRegular():
			data, err = os.ReadFile(from)
			fmt.Fprintf(h, "%s\n%d\n", data, len(data))
		}
		to := filepath.Join(dst, rel)
		switch {
		case err != nil || dst == "":
			return err
		case info.IsDir():
			return os.Mkdir(to, info.Mode().Perm()|0o700)
		case info.Mode()&fs.ModeSymlink != 0:
			return os.Symlink(target, to)
		case !info.Mode().IsRegular():
			return nil // a socket or a pipe: nothing a learner's work is in
		}
		f, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, info.Mode().Perm())
		if err == nil {
			_, err = f.Write(data)
			err = errors.Join(err, f.Close())
		}
		return err
	})
	return hex.EncodeToString(h.Sum(nil)), err
}
