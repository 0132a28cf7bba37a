package course

// The course manifest, course.yaml at the module's root: every step, its
// tasks, the files a learner edits for each, the -run pattern of the tests
// that check it, and its hints. The runner takes a step's tasks from it; the
// integrity check proves the READMEs, TODOs and hints agree with it.

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"

	"go.yaml.in/yaml/v3"
)

// ManifestFile is the manifest's name, at the module's root.
const ManifestFile = "course.yaml"

// A Manifest is the course: its steps, in order.
type Manifest struct {
	Steps []ManifestStep `yaml:"steps"`
}

// A ManifestStep is one step folder and its tasks.
type ManifestStep struct {
	Dir   string         `yaml:"dir"`
	Title string         `yaml:"title"` // the README's H1
	Tasks []ManifestTask `yaml:"tasks"`
}

// A ManifestTask is one task of a step.
type ManifestTask struct {
	Task  int      `yaml:"task"`
	Title string   `yaml:"title"` // the README's "### Task N: <title>"
	Files []string `yaml:"files"` // the starter files that hold its TODO(task N)
	Run   string   `yaml:"run"`   // the pattern of go test -run that selects its tests
	Hints string   `yaml:"hints"` // its hints file, relative to the step's folder
}

// Command is the command that runs the task's tests, from its step's folder,
// as its README section shows it.
func (t ManifestTask) Command() string {
	return fmt.Sprintf("go test -run '%s' .", t.Run)
}

// UnsafeRun finds what a shell would end, split or expand in a run pattern
// inside the quotes its command is printed in — single (Unix, PowerShell)
// or double (Windows): a quote, a backquote, %, a $ that starts a name or
// an expression, a control character such as a newline. '|', and a '$'
// that ends a pattern or its part ('TestMenu$|TestRun'), are literal in both.
var UnsafeRun = regexp.MustCompile("['\"`%\\p{C}]|\\$[^|)/]")

// ParseManifest decodes a manifest strictly: a field it does not know is an
// error, as is a second document.
func ParseManifest(data []byte) (*Manifest, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var m Manifest
	if err := dec.Decode(&m); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%s is empty", ManifestFile)
		}
		return nil, fmt.Errorf("%s: %v", ManifestFile, err)
	}
	var extra any
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%s: one YAML document only", ManifestFile)
	}
	return &m, nil
}

// ReadManifest reads the manifest of the module at root.
func ReadManifest(root string) (*Manifest, error) {
	data, err := os.ReadFile(filepath.Join(root, ManifestFile))
	if err != nil {
		return nil, err
	}
	return ParseManifest(data)
}

// Step returns the manifest's entry for a step folder.
func (m *Manifest) Step(dir string) (*ManifestStep, bool) {
	for i := range m.Steps {
		if m.Steps[i].Dir == dir {
			return &m.Steps[i], true
		}
	}
	return nil, false
}

// ManifestTasks are a step's tasks as the manifest gives them, each with its
// README section (Section and Line) when the README has a "### Task N".
func ManifestTasks(ms *ManifestStep, readme string) []Task {
	sections := map[int]Task{}
	rt, _ := ReadmeTasks(readme) // the integrity check says what is wrong with it
	for _, t := range rt {
		sections[t.N] = t
	}
	var tasks []Task
	for _, mt := range ms.Tasks {
		tk := Task{N: mt.Task, Title: mt.Title, Run: mt.Run, Files: mt.Files, Hints: mt.Hints}
		if !UnsafeRun.MatchString(mt.Run) { // else no command to paste; the integrity check names the pattern
			tk.Command = mt.Command()
		}
		if s, ok := sections[mt.Task]; ok {
			tk.Line, tk.Section = s.Line, s.Section
		}
		tasks = append(tasks, tk)
	}
	return tasks
}
