package course

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// ReadHints reads a task's hints (the manifest's hints file), gentlest first.
func (s Step) ReadHints(tk Task) ([]string, error) {
	src, err := os.ReadFile(filepath.Join(s.Dir, filepath.FromSlash(tk.Hints)))
	if err != nil {
		return nil, err
	}
	return SplitHints(string(src)), nil
}

// SplitHints splits a hints file into its hints: they are separated by a line
// that holds only "---" (outside code blocks). Empty hints are dropped.
func SplitHints(src string) []string {
	lines := strings.Split(strings.ReplaceAll(src, "\r\n", "\n"), "\n")
	fence := fenced(lines)
	var hints []string
	start := 0
	for i := range len(lines) + 1 {
		if i < len(lines) && (fence[i] || strings.TrimRight(lines[i], " \t") != "---") {
			continue
		}
		if h := strings.TrimSpace(strings.Join(lines[start:i], "\n")); h != "" {
			hints = append(hints, h)
		}
		start = i + 1
	}
	return hints
}

// HintCommand is the command that shows a task's next hint.
func HintCommand(s Step, task int) string {
	return fmt.Sprintf("go tool workshop hint %02d %d", s.Num, task)
}
