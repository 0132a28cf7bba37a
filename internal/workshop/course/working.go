package course

import (
	"cmp"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// WorkingStep returns the index, among steps, of the step the learner is
// working in: of the steps for which candidate is true, the one holding the
// most recently modified file (its hints/ aside) that differs from the
// workshop's starter (the first of UpstreamRefs in the clone, else HEAD), or
// that git does not track. Only such files count, so that a fresh clone,
// where every file has the time of the checkout, points nowhere, and a step
// finished long ago does not pull the learner back. It returns -1 when no
// candidate has such a file, or git cannot tell.
func WorkingStep(ctx context.Context, root string, steps []Step, candidate func(i int) bool) int {
	ref := cmp.Or(upstreamRef(ctx, root), "HEAD")
	changed, err := git(ctx, root, "diff", "-z", "--name-only", "--no-renames", "--relative", ref, "--", ".")
	if err != nil {
		return -1
	}
	untracked, err := git(ctx, root, "ls-files", "-z", "--others", "--exclude-standard", "--", ".")
	if err != nil {
		return -1
	}
	best, bestTime := -1, time.Time{}
	for _, f := range append(names(changed), names(untracked)...) {
		stepName, rest, _ := strings.Cut(f, "/")
		i := slices.IndexFunc(steps, func(s Step) bool { return s.Name == stepName })
		if i < 0 || strings.HasPrefix(rest, "hints/") || !candidate(i) {
			continue
		}
		info, err := os.Stat(filepath.Join(root, filepath.FromSlash(f)))
		if err == nil && (best < 0 || info.ModTime().After(bestTime)) { // err: deleted, no time to compare
			best, bestTime = i, info.ModTime()
		}
	}
	return best
}
