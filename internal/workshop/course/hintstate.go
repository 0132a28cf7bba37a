package course

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// HintState remembers how many hints of each task a learner has seen, in a
// file of the runner's cache folder.
type HintState struct {
	File  string         // "" remembers nothing
	Shown map[string]int // "05-menu-v3/1": hints shown
}

// LoadHintState reads the state kept in dir. A missing file is a fresh
// start; so is one it cannot read (not JSON, a count below zero), and the
// error says why.
func LoadHintState(dir string) (*HintState, error) {
	st := &HintState{Shown: map[string]int{}}
	if dir == "" {
		return st, nil
	}
	st.File = filepath.Join(dir, "hints.json")
	data, err := os.ReadFile(st.File)
	if errors.Is(err, fs.ErrNotExist) {
		return st, nil
	}
	var shown map[string]int
	if err == nil {
		err = json.Unmarshal(data, &shown)
	}
	for k, n := range shown {
		if err == nil && n < 0 {
			err = fmt.Errorf("%q: %d hints shown", k, n)
		}
	}
	if err != nil {
		return st, fmt.Errorf("%s: %w", st.File, err)
	}
	if shown != nil {
		st.Shown = shown
	}
	return st, nil
}

func hintKey(step string, task int) string { return fmt.Sprintf("%s/%d", step, task) }

// Next returns the index of the hint to show for a task (0 for the first) out
// of n, and records it as shown. Once every hint has been shown, it returns
// the last again.
func (s *HintState) Next(step string, task, n int) int {
	k := hintKey(step, task)
	i := min(s.Shown[k], n-1)
	s.Shown[k] = i + 1
	return i
}

// Save writes the state back.
func (s *HintState) Save() error {
	if s.File == "" {
		return nil
	}
	data, err := json.MarshalIndent(s.Shown, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(s.File), 0o755); err != nil {
		return err
	}
	return os.WriteFile(s.File, data, 0o644)
}
