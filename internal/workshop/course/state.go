package course

import (
	"context"
	"path/filepath"
	"strings"
)

// StateDirName is the folder, inside git's common folder, where the runner
// keeps what belongs to this clone: the hints shown and what reset kept.
const StateDirName = "go-cancellation-workshop"

// LocalStateDir is the state's folder, relative to the module's root, when
// the workshop is not a git clone. .gitignore lists it.
const LocalStateDir = ".workshop"

// StateDir returns the folder that holds the runner's state for the clone at
// root: inside git's common folder (`git rev-parse --git-common-dir`), which
// every worktree of the clone shares, or, outside git, root/.workshop.
func StateDir(ctx context.Context, root string) string {
	if out, err := git(ctx, root, "rev-parse", "--path-format=absolute", "--git-common-dir"); err == nil && strings.TrimSpace(out) != "" {
		return filepath.Join(strings.TrimSpace(out), StateDirName)
	}
	return filepath.Join(root, LocalStateDir)
}
