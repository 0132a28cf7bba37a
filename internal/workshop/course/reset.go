package course

// Resetting a step to its starter, with git. The starter is the step folder
// as the workshop's repository has it — the remote-tracking branch of the
// remote named upstream, else of origin — not the learner's last commit: a
// learner who committed their own work still gets the starter back. A clone
// without such a remote must name the commit to restore from.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
)

// UpstreamRefs are tried in order for the workshop's own version of a step.
var UpstreamRefs = []string{"upstream/HEAD", "upstream/main", "origin/HEAD", "origin/main", "origin/master"}

// A ResetPlan is what reset would do to one step folder.
type ResetPlan struct {
	Step    Step
	Ref     string   // the commit-ish the starter comes from
	RepoDir string   // the git repository's top folder
	Path    string   // the step's folder, relative to RepoDir, with '/'
	Restore []string // files (relative to RepoDir) that differ from the starter, or are missing
	Delete  []string // files in the step folder the starter does not have, and git does not track
}

// Empty reports whether the step is already its starter.
func (p *ResetPlan) Empty() bool { return len(p.Restore) == 0 && len(p.Delete) == 0 }

func git(ctx context.Context, dir string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(errOut.String())
		if msg == "" {
			msg = err.Error()
		}
		return out.String(), fmt.Errorf("git %s: %s", strings.Join(args, " "), msg)
	}
	return out.String(), nil
}

// PlanReset works out what restoring a step's starter from ref would change;
// ref "" picks the first of UpstreamRefs that exists. root is the module's
// folder: a step folder that resolves outside it (a link into another clone)
// is refused.
func PlanReset(ctx context.Context, root string, step Step, ref string) (*ResetPlan, error) {
	if _, err := exec.LookPath("git"); err != nil {
		return nil, errors.New("reset restores the starter with git, and git is not on the PATH")
	}
	repoDir, rel, err := stepPath(ctx, root, step)
	if err != nil {
		return nil, err
	}
	p := &ResetPlan{Step: step, RepoDir: repoDir, Path: rel}
	if ref == "" {
		if ref = upstreamRef(ctx, p.RepoDir); ref == "" {
			return nil, fmt.Errorf("this clone has no remote branch of the workshop (tried %s) to take the starter from: name the commit to take it from with -from (git log --oneline -- %s lists the commits that changed it)",
				strings.Join(UpstreamRefs, ", "), p.Path)
		}
	}
	if !isCommit(ctx, p.RepoDir, ref) {
		return nil, fmt.Errorf("%q is not a commit of this clone", ref)
	}
	p.Ref = ref
	// -z: each name exactly as it is, NUL-terminated. Without it git quotes
	// a name that is not plain ASCII or holds a quote ("caf\303\251.go").
	tree, err := git(ctx, p.RepoDir, "ls-tree", "-r", "-z", "--name-only", ref, "--", p.Path+"/")
	if err != nil {
		return nil, err
	}
	if tree == "" {
		return nil, fmt.Errorf("%s has no folder %s: nothing to restore it from", ref, p.Path)
	}
	changed, err := git(ctx, p.RepoDir, "diff", "-z", "--name-only", "--no-renames", ref, "--", p.Path+"/")
	if err != nil {
		return nil, err
	}
	// A file the starter does not have (one the learner committed) is not
	// restored but deleted: git restore removes it.
	inStarter := map[string]bool{}
	for _, n := range names(tree) {
		inStarter[n] = true
	}
	for _, n := range names(changed) {
		if inStarter[n] {
			p.Restore = append(p.Restore, n)
		} else {
			p.Delete = append(p.Delete, n)
		}
	}
	// --directory: an untracked folder (a nested repository among them) is
	// one name, ending in '/', deleted whole.
	untracked, err := git(ctx, p.RepoDir, "ls-files", "-z", "--others", "--directory", "--", p.Path+"/")
	if err != nil {
		return nil, err
	}
	p.Delete = append(p.Delete, names(untracked)...)
	return p, nil
}

// upstreamRef returns the first of UpstreamRefs that is a commit of the
// clone at dir, or "".
func upstreamRef(ctx context.Context, dir string) string {
	for _, r := range UpstreamRefs {
		if isCommit(ctx, dir, r) {
			return r
		}
	}
	return ""
}

func isCommit(ctx context.Context, dir, ref string) bool {
	_, err := git(ctx, dir, "rev-parse", "--verify", "--quiet", ref+"^{commit}")
	return err == nil
}

// names splits git's -z output into names, kept exactly: a name may end in
// a space.
func names(s string) []string {
	var out []string
	for n := range strings.SplitSeq(s, "\x00") {
		if n != "" {
			out = append(out, n)
		}
	}
	return out
}

// Apply restores the starter's files and deletes the others, inside the step
// folder only.
func (p *ResetPlan) Apply(ctx context.Context) error {
	for _, f := range p.Delete {
		if !p.inStep(f) {
			return fmt.Errorf("refusing to delete %q: it is outside %s", f, p.Path)
		}
	}
	if !p.Empty() {
		if _, err := git(ctx, p.RepoDir, "restore", "--source="+p.Ref, "--worktree", "--", p.Path+"/"); err != nil {
			return err
		}
	}
	for _, f := range p.Delete {
		// RemoveAll: a folder goes whole; a link goes, not what it points to.
		if err := os.RemoveAll(filepath.Join(p.RepoDir, filepath.FromSlash(f))); err != nil {
			return err
		}
	}
	return nil
}

// inStep reports whether name, relative to RepoDir with '/', is inside the
// step's folder.
func (p *ResetPlan) inStep(name string) bool {
	rest, ok := strings.CutPrefix(strings.TrimSuffix(name, "/"), p.Path+"/")
	return ok && path.Clean(rest) == rest && filepath.IsLocal(filepath.FromSlash(rest))
}

// stepPath returns the top folder of the git clone that holds root, and
// the step's folder relative to it, with '/': from the step list and git,
// never from what the runner kept.
func stepPath(ctx context.Context, root string, step Step) (repoDir, rel string, err error) {
	stepDir, err := step.Resolve(root)
	if err != nil {
		return "", "", err
	}
	if repoDir, err = RepoDir(ctx, root); err != nil {
		return "", "", fmt.Errorf("%v: reset needs git's copy of the starter", err)
	}
	realRepo, err := filepath.EvalSymlinks(repoDir)
	if err != nil {
		return "", "", err
	}
	rel, err = filepath.Rel(realRepo, stepDir)
	if err != nil || rel == "." || !filepath.IsLocal(rel) {
		return "", "", fmt.Errorf("%s is not a folder inside the git clone %s", step.Dir, repoDir)
	}
	return repoDir, filepath.ToSlash(rel), nil
}

// RepoDir returns the top folder of the git clone that holds root.
func RepoDir(ctx context.Context, root string) (string, error) {
	top, err := git(ctx, root, "rev-parse", "--show-toplevel")
	if err != nil {
		return "", fmt.Errorf("%s is not in a git clone of the workshop (%v)", root, err)
	}
	return filepath.Clean(strings.TrimSpace(top)), nil
}
