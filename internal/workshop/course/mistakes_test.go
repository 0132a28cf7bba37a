package course

// The catalog's parser and its in-memory patches, on a small catalog.

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/icecreamcorp/go-cancellation-workshop/internal/gotest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const fixtureCatalog = "# Mistakes: 07-example\n\nIntro.\n\n## Task 1: Add\n\n" +
	"### Subtracts instead\nThe sign is wrong.\nStill wrong.\n\n```diff\n--- add.go\n@@\n func Add(a, b int) int {\n-\treturn a + b\n+\treturn a - b\n```\n\n" +
	"### Races on a counter [race] [vet]\n\n```diff\n--- add.go\n@@\n-\treturn a + b\n+\treturn b + a\n@@\n \n-var n int\n+var n, m int\n```\n\n" +
	"## Task 2: Watching\n\n### Matches twice\n\n```diff\n--- add.go\n@@\n-\tn++\n```\n"

const fixtureAdd = "package add\n\nfunc Add(a, b int) int {\n\treturn a + b\n}\n\nvar n int\n\nfunc f() {\n\tn++\n\tn++\n}\n"

func TestParseCatalog(t *testing.T) {
	entries := ParseCatalog(fixtureCatalog)
	require.Len(t, entries, 3, "entries")
	assert.Equal(t, Mistake{Task: 1, TaskTitle: "Add", Title: "Subtracts instead", Prose: "The sign is wrong.\nStill wrong.", Line: 7,
		Diff:  "--- add.go\n@@\n func Add(a, b int) int {\n-\treturn a + b\n+\treturn a - b",
		Hunks: []Hunk{{File: "add.go", Lines: []string{" func Add(a, b int) int {", "-\treturn a + b", "+\treturn a - b"}}}}, entries[0], "entry 1")
	assert.Equal(t, []string{"race", "vet"}, entries[1].Tags, "tags")
	assert.True(t, entries[1].Has("race"), "Has(race)")
	assert.Len(t, entries[1].Hunks, 2, "two hunks, one file")
	assert.Equal(t, []string{" ", "-var n int", "+var n, m int"}, entries[1].Hunks[1].Lines, "an empty hunk line is an empty context line")
}

func TestApplyMistake(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "add.go"), []byte(fixtureAdd), 0o644), "writing add.go")
	entries := ParseCatalog(fixtureCatalog)

	files, err := entries[1].Apply(dir)
	require.NoError(t, err, "Apply of two hunks to one file")
	assert.Equal(t, "package add\n\nfunc Add(a, b int) int {\n\treturn b + a\n}\n\nvar n, m int\n\nfunc f() {\n\tn++\n\tn++\n}\n",
		files[filepath.Join(dir, "add.go")], "both hunks applied, in memory")
	data, _ := os.ReadFile(filepath.Join(dir, "add.go"))
	assert.Equal(t, fixtureAdd, string(data), "the file on disk is untouched")

	_, err = entries[2].Apply(dir)
	assert.ErrorContains(t, err, "hunk 1 of add.go matches 2 times, want exactly once", "a hunk that matches twice")
}

func TestSkippedNamesTheSkips(t *testing.T) {
	run := &gotest.TestRun{
		Ran:     []string{"TestA", "TestA/hangup", "TestB"},
		Outcome: map[string]string{"TestA": "pass", "TestA/hangup": "skip", "TestB": "pass"},
		ByTest:  map[string][]string{"TestA/hangup": {"=== RUN   TestA/hangup\n", "    a_test.go:9: started with hangup ignored (nohup)\n", "--- SKIP: TestA/hangup (0.00s)\n"}},
	}
	if got, want := skipped(run), " — or a test skipped here: TestA/hangup (a_test.go:9: started with hangup ignored (nohup))"; got != want {
		t.Errorf("skipped = %q, want %q", got, want)
	}
	if got := skipped(&gotest.TestRun{Ran: []string{"TestA"}, Outcome: map[string]string{"TestA": "pass"}}); got != "" {
		t.Errorf("skipped(no skips) = %q, want \"\"", got)
	}
}
