package course

// The files of a step: its Go sources and tests, and the TODO markers of its
// starter.

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// goFiles lists the names of a folder's *_test.go files (tests) or of its
// other .go files (!tests), sorted.
func goFiles(dir string, tests bool) ([]string, error) {
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

// StarterTODOs scans the non-test .go files of a step's folder (a step is
// one package) for TODO(task N) markers.
func StarterTODOs(stepDir string) ([]Todo, error) {
	names, err := goFiles(stepDir, false)
	if err != nil {
		return nil, err
	}
	var todos []Todo
	for _, name := range names {
		src, err := os.ReadFile(filepath.Join(stepDir, name))
		if err != nil {
			return nil, err
		}
		todos = append(todos, ScanTODOs(name, string(src))...)
	}
	return todos, nil
}

// SolutionTestProblems says what is wrong with the solution folder's files
// as the overlay reads them: the step's tests live in the step alone, and
// the solution has sources to put over it.
func SolutionTestProblems(step Step, solutionDir string) ([]string, error) {
	var problems []string
	mine, err := goFiles(step.Dir, true)
	if err != nil {
		return nil, err
	}
	if len(mine) == 0 {
		problems = append(problems, "the step has no *_test.go file")
	}
	theirs, err := goFiles(solutionDir, true)
	if err != nil {
		return nil, err
	}
	for _, name := range theirs {
		problems = append(problems, fmt.Sprintf("solutions/%s/%s: a step's tests live in the step's folder alone (the solution is tested over it with go test -overlay): delete it, or move it to %s", step.Name, name, step.Name))
	}
	if src, err := goFiles(solutionDir, false); err != nil || len(src) == 0 {
		problems = append(problems, fmt.Sprintf("solutions/%s has no .go file to put over the step", step.Name))
	}
	return problems, nil
}
