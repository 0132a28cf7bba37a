package course

// The mistake catalog of a step, solutions/NN-…/MISTAKES.md: wrong answers a
// learner is likely to write, each a small change to the solution. Parsing
// and applying them in memory are pure functions (mistakes_test.go); proving
// that the tests reject each one runs go test (prove.go).

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// CatalogFile is a step's catalog, in its solution's folder.
const CatalogFile = "MISTAKES.md"

// A Mistake is one entry of a catalog.
type Mistake struct {
	Task      int      // the task of its "## Task N: …" section
	TaskTitle string   // the title that section gives
	Title     string   // what is wrong, in a line
	Tags      []string // "race" (rejected only under -race), "vet" (rejected by go vet)
	Prose     string   // why, in a line or two
	Diff      string   // its diff block, as written
	Hunks     []Hunk
	Line      int // of its "### " heading, counted from 1
}

// A Hunk is one change to one file of the solution.
type Hunk struct {
	File  string   // relative to the solution's folder, with '/'
	Lines []string // ' ' context, '-' removed, '+' added; "" an empty context line
}

// Has reports whether the entry carries a tag.
func (m Mistake) Has(tag string) bool { return slices.Contains(m.Tags, tag) }

var (
	catalogTask  = regexp.MustCompile(`^## Task (\d+)\b[:.\s—-]*(.*)$`)
	catalogEntry = regexp.MustCompile(`^### (.*?)\s*((?:\[(?:race|vet)\]\s*)*)$`)
	catalogTag   = regexp.MustCompile(`\[(\w+)\]`)
)

// ParseCatalog reads a catalog. A diff opens with a "```diff" line after an
// entry's heading and closes with the next "```" line.
func ParseCatalog(text string) []Mistake {
	var (
		entries []Mistake
		task    int
		title   string
		cur     *Mistake
		inDiff  bool
		file    string
		hunk    []string
		start   int // the diff's first line
		lines   = strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	)
	flush := func() {
		if hunk != nil {
			cur.Hunks = append(cur.Hunks, Hunk{File: file, Lines: hunk})
		}
		hunk = nil
	}
	for i, line := range lines {
		if inDiff {
			switch {
			case strings.HasPrefix(line, "```"):
				flush()
				inDiff, cur.Diff = false, strings.Join(lines[start:i], "\n")
			case strings.HasPrefix(line, "--- "):
				flush()
				file = strings.TrimSpace(line[4:])
			case strings.HasPrefix(line, "@@"):
				flush()
				hunk = []string{}
			default:
				hunk = append(hunk, line)
			}
			continue
		}
		if m := catalogTask.FindStringSubmatch(line); m != nil {
			task, _ = strconv.Atoi(m[1])
			title = strings.TrimSpace(m[2])
			cur = nil
			continue
		}
		if m := catalogEntry.FindStringSubmatch(line); m != nil {
			entries = append(entries, Mistake{Task: task, TaskTitle: title, Title: m[1], Line: i + 1})
			cur = &entries[len(entries)-1]
			for _, t := range catalogTag.FindAllStringSubmatch(m[2], -1) {
				cur.Tags = append(cur.Tags, t[1])
			}
			continue
		}
		switch {
		case cur == nil:
		case strings.HasPrefix(line, "```diff") && cur.Diff == "":
			inDiff, file, hunk, start = true, "", nil, i+1
		case cur.Diff == "" && strings.TrimSpace(line) != "":
			cur.Prose = strings.TrimSpace(cur.Prose + "\n" + line)
		}
	}
	if inDiff {
		flush()
		cur.Diff = strings.Join(lines[start:], "\n")
	}
	return entries
}

// ReadCatalog reads a step's catalog; ok is false when it has none.
func ReadCatalog(root string, step Step) (entries []Mistake, ok bool, err error) {
	src, err := os.ReadFile(filepath.Join(step.SolutionDir(root), CatalogFile))
	if os.IsNotExist(err) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	return ParseCatalog(string(src)), true, nil
}

// Apply applies a mistake to the files of the solution folder dir, in
// memory: it returns each changed file's new content by its path. The old
// text of a hunk (its ' ' and '-' lines) must occur exactly once.
func (m Mistake) Apply(dir string) (map[string]string, error) {
	if len(m.Hunks) == 0 {
		return nil, fmt.Errorf("no change: its ```diff block has no --- FILE and @@ hunk")
	}
	files := map[string]string{}
	for i, h := range m.Hunks {
		if h.File == "" || !filepath.IsLocal(filepath.FromSlash(h.File)) {
			return nil, fmt.Errorf("hunk %d names no file of the solution (--- FILE before it)", i+1)
		}
		path := filepath.Join(dir, filepath.FromSlash(h.File))
		src, ok := files[path]
		if !ok {
			data, err := os.ReadFile(path)
			if err != nil {
				return nil, fmt.Errorf("hunk %d: %v", i+1, err)
			}
			src = string(data)
		}
		var old, new []string
		for _, l := range h.Lines {
			text := ""
			if l != "" {
				text = l[1:]
			}
			if !strings.HasPrefix(l, "+") {
				old = append(old, text)
			}
			if !strings.HasPrefix(l, "-") {
				new = append(new, text)
			}
		}
		o := strings.Join(old, "\n")
		if n := strings.Count(src, o); n != 1 {
			return nil, fmt.Errorf("hunk %d of %s matches %d times, want exactly once:\n%s", i+1, h.File, n, indent(o))
		}
		files[path] = strings.Replace(src, o, strings.Join(new, "\n"), 1)
	}
	return files, nil
}
