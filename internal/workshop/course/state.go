package course

import (
	"context"
	"path/filepath"
	"strings"
)

// StateDirName is the folder, inside git's common folder (which every
// worktree of the clone shares), where the runner keeps what belongs to the
// clone: the hints shown, what reset kept, the results cache.
const StateDirName = "go-cancellation-workshop"

// LocalStateDir is that folder, in the module's root, outside git.
// .gitignore lists it.
const LocalStateDir = ".workshop"

// StateDir returns the runner's state folder for the clone at root.
func StateDir(ctx context.Context, root string) string {
	if out, err := git(ctx, root, "rev-parse", "--path-format=absolute", "--git-common-dir"); err == nil {
		return filepath.Join(strings.TrimSpace(out), StateDirName)
	}
	return filepath.Join(root, LocalStateDir)
}
