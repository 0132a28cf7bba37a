package course

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A clone in a folder whose name a glob would read as a pattern still has
// its steps, in order, and only its step folders.
func TestStepsOfACloneInAGlobLikeFolder(t *testing.T) {
	root := filepath.Join(t.TempDir(), "work[1]")
	for _, dir := range []string{"02-b", "01-a", "solutions", "1-not-a-step"} {
		require.NoError(t, os.MkdirAll(filepath.Join(root, dir), 0o755))
	}
	require.NoError(t, os.WriteFile(filepath.Join(root, "03-a-file"), nil, 0o644))
	steps, err := Steps(root)
	require.NoError(t, err)
	var names []string
	for _, s := range steps {
		names = append(names, s.Name)
	}
	assert.Equal(t, []string{"01-a", "02-b"}, names)
}
