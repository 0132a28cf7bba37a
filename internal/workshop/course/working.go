package course

// Which step the learner is working in: the one whose files they changed
// last. Only the files that differ from the workshop's starter count (git
// knows which), so a fresh clone, where every file has the time of the
// checkout, points nowhere, and a step finished long ago does not pull the
// learner back.

import (
	"cmp"
	"context"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// WorkingStep returns the index, among steps, of the step the learner is
// working in: of the steps for which candidate is true, the one holding the
// most recently modified file (its hints/ aside) that differs from the
// workshop's starter (the first of UpstreamRefs in the clone, else HEAD), or
// that git does not track. It returns -1 when no candidate has such a file,
// or git cannot tell.
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
		stepName, rest, ok := strings.Cut(f, "/")
		if !ok || strings.HasPrefix(rest, "hints/") {
			continue
		}
		for i, s := range steps {
			if s.Name != stepName || !candidate(i) {
				continue
			}
			info, err := os.Stat(filepath.Join(root, filepath.FromSlash(f)))
			if err != nil {
				continue // deleted: no time to compare
			}
			if best < 0 || info.ModTime().After(bestTime) {
				best, bestTime = i, info.ModTime()
			}
		}
	}
	return best
}
