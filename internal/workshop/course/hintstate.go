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
// file of the runner's state folder.
type HintState struct {
	File  string
	Shown map[string]int // "05-menu-v3/1": hints shown
}

// LoadHintState reads the state kept in dir. A missing file is a fresh
// start; so is one it cannot read, and the error says why.
func LoadHintState(dir string) (*HintState, error) {
	st := &HintState{File: filepath.Join(dir, "hints.json")}
	data, err := os.ReadFile(st.File)
	if err == nil {
		err = json.Unmarshal(data, &st.Shown)
	}
	if err != nil || st.Shown == nil { // a file of "null" too
		st.Shown = map[string]int{}
	}
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return st, fmt.Errorf("%s: %w", st.File, err)
	}
	return st, nil
}

// Next returns the index of the hint to show for a task (0 for the first) out
// of n, and records it as shown. Once every hint has been shown, it returns
// the last again.
func (s *HintState) Next(step string, task, n int) int {
	k := fmt.Sprintf("%s/%d", step, task)
	i := max(0, min(s.Shown[k], n-1))
	s.Shown[k] = i + 1
	return i
}

// Save writes the state back.
func (s *HintState) Save() error {
	data, _ := json.MarshalIndent(s.Shown, "", "  ") // a map of ints always encodes
	if err := os.MkdirAll(filepath.Dir(s.File), 0o755); err != nil {
		return err
	}
	return os.WriteFile(s.File, data, 0o644)
}
