package course

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSolutionOverlay(t *testing.T) {
	root := t.TempDir()
	step := Step{Name: "01-stock", Num: 1, Dir: filepath.Join(root, "01-stock")}
	solution := step.SolutionDir(root)
	write := func(dir, name, content string) {
		t.Helper()
		require.NoError(t, os.MkdirAll(dir, 0o755), "making a fixture folder")
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644), "writing a fixture")
	}
	write(step.Dir, "stock.go", "package stock // TODO(task 1): differs from the solution, as it should\n")
	write(step.Dir, "old.go", "package stock // the solution has no old.go\n")
	write(solution, "stock.go", "package stock\n")
	write(solution, "stock_unix.go", "package stock // the step has no stock_unix.go\n")
	write(step.Dir, "stock_test.go", "package stock\n")

	changed := map[string]string{filepath.Join(solution, "stock.go"): "package stock // a mistake\n"}
	tmp := t.TempDir()
	replace, err := SolutionOverlay(root, []Step{step}, changed, tmp)
	require.NoError(t, err, "SolutionOverlay")
	abs := func(p string) string {
		a, err := filepath.Abs(p)
		require.NoError(t, err, "Abs")
		return a
	}
	require.Len(t, replace, 3, "the overlay, the step's test file left alone: %v", replace)
	assert.Equal(t, "", replace[abs(filepath.Join(step.Dir, "old.go"))], "a step file the solution lacks is deleted")
	assert.Equal(t, abs(filepath.Join(solution, "stock_unix.go")), replace[abs(filepath.Join(step.Dir, "stock_unix.go"))], "a solution file the step lacks is added")
	got, err := os.ReadFile(replace[abs(filepath.Join(step.Dir, "stock.go"))])
	require.NoError(t, err, "reading the changed file")
	assert.Equal(t, "package stock // a mistake\n", string(got), "a changed solution file is read from its new content")
}
