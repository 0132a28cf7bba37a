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
	"strings"
)

// sources lists the non-test .go files of dir, by name.
func sources(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range entries {
		if n := e.Name(); !e.IsDir() && strings.HasSuffix(n, ".go") && !strings.HasSuffix(n, "_test.go") {
			names = append(names, n)
		}
	}
	return names, nil
}

// SolutionOverlay is the overlay that puts each step's solution over it, as
// go's -overlay flag reads it: the absolute path of a step's file → the file
// to read instead, "" for a file deleted. changed holds new contents of
// solution files by their path (a mistake applied, Mistake.Apply): they are
// written to files in tmp.
func SolutionOverlay(root string, steps []Step, changed map[string]string, tmp string) (map[string]string, error) {
	replace := map[string]string{}
	n := 0
	for _, step := range steps {
		solDir := step.SolutionDir(root)
		sol, err := sources(solDir)
		if err != nil {
			return nil, fmt.Errorf("reading the solution of %s: %w", step.Name, err)
		}
		mine, err := sources(step.Dir)
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", step.Name, err)
		}
		for _, name := range mine {
			if !slices.Contains(sol, name) {
				abs, err := filepath.Abs(filepath.Join(step.Dir, name))
				if err != nil {
					return nil, err
				}
				replace[abs] = ""
			}
		}
		for _, name := range sol {
			src, err := filepath.Abs(filepath.Join(solDir, name))
			if err != nil {
				return nil, err
			}
			dst, err := filepath.Abs(filepath.Join(step.Dir, name))
			if err != nil {
				return nil, err
			}
			if content, ok := changed[filepath.Join(solDir, name)]; ok {
				n++
				src = filepath.Join(tmp, fmt.Sprintf("%d-%s", n, name))
				if err := os.WriteFile(src, []byte(content), 0o644); err != nil {
					return nil, err
				}
			}
			replace[dst] = src
		}
	}
	return replace, nil
}

// WriteSolutionOverlay writes SolutionOverlay's overlay of steps to the file
// path, for `go test -overlay path ./NN-…`: CI builds the steps' test
// binaries for Windows and macOS with it.
func WriteSolutionOverlay(root string, steps []Step, path string) error {
	replace, err := SolutionOverlay(root, steps, nil, "")
	if err != nil {
		return err
	}
	return writeOverlayFile(path, replace)
}

func writeOverlayFile(path string, replace map[string]string) error {
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
	replace, err := SolutionOverlay(root, steps, changed, dir)
	if err == nil {
		path = filepath.Join(dir, "overlay.json")
		err = writeOverlayFile(path, replace)
	}
	if err != nil {
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

// SolutionTestProblems says what is wrong with the solution folder's files
// as the overlay reads them: the step's tests live in the step alone, and
// the solution has sources to put over it.
func SolutionTestProblems(step Step, solutionDir string) ([]string, error) {
	var problems []string
	mine, err := testFiles(step.Dir)
	if err != nil {
		return nil, err
	}
	if len(mine) == 0 {
		problems = append(problems, "the step has no *_test.go file")
	}
	theirs, err := testFiles(solutionDir)
	if err != nil {
		return nil, err
	}
	for _, name := range theirs {
		problems = append(problems, fmt.Sprintf("solutions/%s/%s: a step's tests live in the step's folder alone (the solution is tested over it with go test -overlay): delete it, or move it to %s", step.Name, name, step.Name))
	}
	src, err := sources(solutionDir)
	if err != nil {
		return nil, err
	}
	if len(src) == 0 {
		problems = append(problems, fmt.Sprintf("solutions/%s has no .go file to put over the step", step.Name))
	}
	return problems, nil
}
