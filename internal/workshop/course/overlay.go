package course

// A step's tests live once, in the step's folder. A solution is tested by
// putting it over its step with `go test -overlay` (the files on disk
// untouched): each non-test Go file of the step is replaced by the
// solution's file of that name, or deleted when the solution has none, and
// each solution file the step lacks (report_unix.go in 06) is added. A
// mistake of a catalog is one more change to the solution's files.

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// SolutionOverlay is the overlay that puts each step's solution over it, as
// go's -overlay flag reads it: the absolute path of a step's file → the file
// to read instead, "" for a file deleted. changed holds new contents of
// solution files by their path (a mistake applied, Mistake.Apply): they are
// written to files in tmp.
func SolutionOverlay(root string, steps []Step, changed map[string]string, tmp string) (map[string]string, error) {
	replace := map[string]string{}
	for _, step := range steps {
		solDir := step.SolutionDir(root)
		sol, err := GoFiles(solDir, false)
		if err != nil {
			return nil, fmt.Errorf("reading the solution of %s: %w", step.Name, err)
		}
		mine, err := GoFiles(step.Dir, false)
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", step.Name, err)
		}
		absStep, err := filepath.Abs(step.Dir)
		if err != nil {
			return nil, err
		}
		absSol, err := filepath.Abs(solDir)
		if err != nil {
			return nil, err
		}
		for _, name := range mine {
			if !slices.Contains(sol, name) {
				replace[filepath.Join(absStep, name)] = ""
			}
		}
		for _, name := range sol {
			src := filepath.Join(absSol, name)
			if content, ok := changed[filepath.Join(solDir, name)]; ok {
				src = filepath.Join(tmp, fmt.Sprintf("%d-%s", len(replace), name))
				if err := os.WriteFile(src, []byte(content), 0o644); err != nil {
					return nil, err
				}
			}
			replace[filepath.Join(absStep, name)] = src
		}
	}
	return replace, nil
}

// WriteSolutionOverlay writes SolutionOverlay's overlay of steps to the
// file path, for `go test -overlay path ./NN-…`. solutions/integrity_test.go
// runs every step's tests on its solution with it (TestSolutions), and
// writes it for CI (TestSolutionOverlay), which builds the steps' test
// binaries for Windows and macOS with it.
func WriteSolutionOverlay(root string, steps []Step, path string) error {
	return writeOverlay(path, root, steps, nil)
}

func writeOverlay(path, root string, steps []Step, changed map[string]string) error {
	replace, err := SolutionOverlay(root, steps, changed, filepath.Dir(path))
	if err != nil {
		return err
	}
	data, err := json.MarshalIndent(map[string]any{"Replace": replace}, "", "\t")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(data, '\n'), 0o644)
}

// overlayFile writes the overlay that puts the solutions of steps over them,
// with changed (see SolutionOverlay), to a temporary folder; cleanup removes it.
func overlayFile(root string, steps []Step, changed map[string]string) (path string, cleanup func(), err error) {
	dir, err := os.MkdirTemp("", "solution-overlay-")
	if err != nil {
		return "", nil, err
	}
	cleanup = func() { os.RemoveAll(dir) }
	path = filepath.Join(dir, "overlay.json")
	if err := writeOverlay(path, root, steps, changed); err != nil {
		cleanup()
		return "", nil, err
	}
	return path, cleanup, nil
}

// GoFiles lists the names of a folder's *_test.go files (tests) or of its
// other .go files (!tests), sorted.
func GoFiles(dir string, tests bool) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range entries {
		if n := e.Name(); !e.IsDir() && strings.HasSuffix(n, ".go") && strings.HasSuffix(n, "_test.go") == tests {
			names = append(names, n)
		}
	}
	return names, nil
}
