// Package course is what the workshop's runner (go tool workshop) and its
// integrity check (go test ./solutions/...) know about the course: its steps,
// their tasks and hints, how to run their tests and read the results, and
// its mistake catalogs.
package course

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// StepGlob matches the step folders at the top of the module: 01-stock-service, …
const StepGlob = "[0-9][0-9]-*"

// A Step is one folder of the course, at the top of the module.
type Step struct {
	Name string // the folder's name: "05-menu-v3"
	Num  int    // its number: 5
	Dir  string // its path
}

// SolutionDir is where the step's finished version lives.
func (s Step) SolutionDir(root string) string {
	return filepath.Join(root, "solutions", s.Name)
}

// Steps lists the step folders of the module at root, in order.
func Steps(root string) ([]Step, error) {
	entries, err := os.ReadDir(root) // not a Glob of root: its path may hold a [ or a *
	if err != nil {
		return nil, err
	}
	var steps []Step
	for _, e := range entries {
		name, dir := e.Name(), filepath.Join(root, e.Name())
		if ok, _ := filepath.Match(StepGlob, name); !ok {
			continue
		}
		if info, err := os.Stat(dir); err != nil || !info.IsDir() {
			continue
		}
		n, _ := strconv.Atoi(name[:2])
		steps = append(steps, Step{Name: name, Num: n, Dir: dir})
	}
	return steps, nil
}

// FindStep finds a step by its number ("05" or "5") or its folder's name
// ("05-menu-v3"). A path is not a name: the runner resolves one from the
// folder it was started in (see NoStep).
func FindStep(steps []Step, arg string) (Step, error) {
	n, err := strconv.Atoi(arg)
	for _, s := range steps {
		if s.Name == arg || (err == nil && s.Num == n) {
			return s, nil
		}
	}
	return Step{}, NoStep(steps, arg)
}

// NoStep is the error for an argument that names no step: it lists them.
func NoStep(steps []Step, arg string) error {
	var names []string
	for _, s := range steps {
		names = append(names, s.Name)
	}
	return fmt.Errorf("no step %q: the steps are %s (name one by its number, such as %02d, or its folder)",
		arg, strings.Join(names, ", "), steps[0].Num)
}

// Resolve returns the step's folder with every link resolved, or an error
// if that is outside the module at root: a step folder that is a link into
// another clone holds that clone's work, and no command of this one touches
// it.
func (s Step) Resolve(root string) (string, error) {
	dir, err := filepath.EvalSymlinks(s.Dir)
	if err != nil {
		return "", err
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return "", err
	}
	if rel, err := filepath.Rel(realRoot, dir); err != nil || !filepath.IsLocal(rel) {
		return "", fmt.Errorf("%s is a link to %s, outside this clone (%s): the runner works only on this clone's own step folders", s.Name, dir, root)
	}
	return dir, nil
}

// ReadTasks returns the step's tasks from the course manifest (course.yaml,
// beside the step's folder), each with its README section.
func (s Step) ReadTasks() ([]Task, error) {
	m, err := ReadManifest(filepath.Dir(s.Dir))
	if err != nil {
		return nil, err
	}
	ms, ok := m.Step(s.Name)
	if !ok {
		return nil, fmt.Errorf("%s is not in %s: list its tasks there", s.Name, ManifestFile)
	}
	readme, _ := os.ReadFile(filepath.Join(s.Dir, "README.md"))
	return ManifestTasks(ms, string(readme)), nil
}
