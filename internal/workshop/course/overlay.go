package course

// A step's tests live once, in the step's folder. A solution is tested by
// putting it over its step with `go test -overlay` (the files on disk
// untouched): each non-test Go file of the step is replaced by the
// solution's file of that name, or deleted when the solution has none, and
// each solution file the step lacks (report_unix.go in 06) is added. A
// mistake of a catalog is one more change to the solution's files.

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
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
		sol, err := goFiles(solDir, false)
		if err != nil {
			return nil, fmt.Errorf("reading the solution of %s: %w", step.Name, err)
		}
		mine, err := goFiles(step.Dir, false)
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
// file path: for `go test -overlay path ./NN-…` (CI builds
// the steps' test binaries for Windows and macOS with it).
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

// TestSolutions runs the step's tests on each solution, put over its step
// with go test -overlay, in one `go test -json args… -overlay … ./NN-…`: each
// step's run, by step name, and go's own complaints, if any.
func TestSolutions(ctx context.Context, g Go, root string, steps []Step, args ...string) (map[string]*TestRun, string, error) {
	g.Dir = root
	overlay, cleanup, err := overlayFile(root, steps, nil)
	if err != nil {
		return nil, "", fmt.Errorf("writing the solutions' overlay: %w", err)
	}
	defer cleanup()
	modPath, err := ModulePath(root)
	if err != nil {
		return nil, "", err
	}
	args = append(args, "-overlay="+overlay)
	for _, s := range steps {
		args = append(args, "./"+s.Name)
	}
	runs, stderr := g.TestJSON(ctx, args...)
	out := map[string]*TestRun{}
	for _, s := range steps {
		if run := pick(runs, modPath+"/"+s.Name); run != nil {
			out[s.Name] = run
		}
	}
	return out, stderr, ctx.Err()
}
