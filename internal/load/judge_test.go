package load

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestGoalsAtScale1(t *testing.T) {
	r := fixedReport()
	r.Setup.Scale = 1 // the fixture's latencies, against a timeout called 1 s
	gs := goals(r)
	require.Len(t, gs, 5, "goals of v2, v3 and v3-h2c")
	for _, g := range gs {
		assert.True(t, g.Judged, "%s at -scale 1: judged (%s)", g.What, g.NotJudged)
		assert.True(t, g.Met, "%s: met, got %s", g.What, g.Got)
	}
}

// ownReport is fixedReport as -own might measure it with an unfinished
// 03-menu-v2 (v2): its goals are not judged, v3's are.
func ownReport() *Report {
	r := fixedReport()
	r.Setup.Own = true
	r.Setup.Unfinished = map[string]string{"03-menu-v2": "0 of 3 tasks — measuring your starter"}
	r.Results[0].Unfinished = r.Setup.unfinished(versions[1])
	r.Goals = goals(r)
	r.Checked, r.Build = 67.6, 48.6
	return r
}

func TestOwnUnfinishedStep(t *testing.T) {
	r := ownReport()
	assert.Equal(t, []string{"03-menu-v2: 0 of 3 tasks — measuring your starter"}, r.Results[0].Unfinished, "v2's unfinished steps")
	assert.Empty(t, r.Setup.unfinished(versions[2]), "v3 is built from 01 and 05, both finished")
	var b bytes.Buffer
	writeText(&b, r)
	out := b.String()
	assert.Contains(t, out, "your own steps, checked in 67.6s and built in 48.6s;", "the time spent asking which steps are finished, apart from the build")
	assert.Contains(t, out, "v2 — menu v2\n  03-menu-v2: 0 of 3 tasks — measuring your starter\n", "the unfinished step, under v2's heading:\n%s", out)
	assert.Regexp(t, `\n  not judged\s+v2 stock work for callers who had left .* — built from your unfinished 03-menu-v2\n`, out, "v2's goal")
	assert.Regexp(t, `\n  met\s+v3 stock work for callers who had left`, out, "v3's goal, from finished steps")
	assert.Contains(t, renderHTML(r), "03-menu-v2: 0 of 3 tasks — measuring your starter", "the HTML report names it too")
}

func TestCrossChecks(t *testing.T) {
	assert.Empty(t, crossChecks(fixedReport()), "warnings for figures that hold together")

	t.Run("a v2 that never answers 504", func(t *testing.T) {
		r := fixedReport()
		v2 := r.Results[0]
		v2.Statuses, v2.Waste.PastDeadline = map[string]int{"200": 2000}, 415
		warns := crossChecks(r)
		require.Len(t, warns, 1, "warnings: %q", warns)
		assert.Contains(t, warns[0], "v2: 415 calls outlived the menu's 250ms timeout, but it answered 0 × 504", "the warning")
	})

	t.Run("a v1 that answers 501 to everything", func(t *testing.T) {
		r := fixedReport()
		r.Results = []*Result{{Version: "v1", Requests: 12904, Statuses: map[string]int{"501": 12904}}}
		warns := crossChecks(r)
		require.Len(t, warns, 1, "warnings: %q", warns)
		assert.Contains(t, warns[0], "v1: 12904 of 12904 answers were 501 × 12904; a finished v1 answers only 200", "the warning")
	})

	t.Run("a close match and a rare odd status are no warning", func(t *testing.T) {
		r := fixedReport()
		v2 := r.Results[0]
		v2.Statuses, v2.Waste.PastDeadline = map[string]int{"200": 187, "502": 1, "504": 1932}, 1931
		assert.Empty(t, crossChecks(r), "1931 calls past the deadline for 1932 504s, one 502 in 2120")
	})

	t.Run("prints a warning and exits 1", func(t *testing.T) {
		r := fixedReport()
		r.Warnings = []string{"v2: 415 calls outlived the menu's 250ms timeout, but it answered 0 × 504"}
		var out, errOut bytes.Buffer
		assert.Equal(t, 1, finish(r, false, "", &out, &errOut), "exit code of a run with a warning")
		assert.Contains(t, out.String(), "\nWarnings: figures that do not hold together (the lab exits 1)\n  ! v2: 415 calls", "the text report")
		out.Reset()
		assert.Equal(t, 1, finish(r, true, "", &out, &errOut), "exit code of a -json run with a warning")
		assert.Contains(t, errOut.String(), "workshop load: warning: v2: 415 calls", "-json: the warning on stderr as well")
		assert.Equal(t, 0, finish(fixedReport(), false, "", &out, &errOut), "exit code of a run without one")
	})
}

func TestMissingServices(t *testing.T) {
	root := t.TempDir()
	s := Setup{Versions: []string{"v1"}}
	err := present(root, servicePkgs(s), false)
	require.Error(t, err, "a clone without solutions/")
	assert.Contains(t, err.Error(), filepath.Join("solutions", "01-stock-service")+" in this clone", "the message names what is missing")
	assert.Contains(t, err.Error(), "go tool workshop load -own", "the message offers -own")

	s.Own = true
	err = present(root, servicePkgs(s), true)
	require.Error(t, err, "-own without the step folders")
	assert.Contains(t, err.Error(), "no Go files in "+filepath.Join(root, "01-stock-service"), "the message names the folder")

	for _, dir := range []string{"01-stock-service", "02-menu-v1"} {
		require.NoError(t, os.MkdirAll(filepath.Join(root, dir), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(root, dir, "main.go"), []byte("package main\n"), 0o644))
	}
	assert.NoError(t, present(root, servicePkgs(s), true), "-own with both folders")
}

// The HTML charts' areas are opaque, so that each shows the colour of its
// legend's swatch, and every swatch has the colour of its series' area.
func TestChartLegendColours(t *testing.T) {
	page := renderHTML(fixedReport())
	areas := regexp.MustCompile(`<polygon [^>]*fill="([^"]+)"([^>]*)><title>([^<]+)</title>`).FindAllStringSubmatch(page, -1)
	require.Len(t, areas, 4, "areas: v2 and v3 in flight, v3 and v3-h2c connections")
	colour := map[string]string{}
	for _, a := range areas {
		assert.NotContains(t, a[2], "opacity", "area %s: a translucent area blends with the one behind it, and then matches no swatch", a[3])
		colour[a[3]] = a[1]
	}
	swatches := regexp.MustCompile(`<rect [^>]*fill="([^"]+)"([^>]*)/><text [^>]*>([^<]+)</text>`).FindAllStringSubmatch(page, -1)
	require.Len(t, swatches, 4, "legend swatches")
	for _, sw := range swatches {
		assert.NotContains(t, sw[2], "opacity", "swatch %s", sw[3])
		assert.Equal(t, colour[sw[3]], sw[1], "swatch of %s against its area", sw[3])
	}
	assert.Equal(t, "#d9822b", colour["v2"], "v2's area")
}

// ownProgress asks the runner's course logic, on a fixture course: a
// finished 01-stock-service and a 03-menu-v2 still at its starter.
func TestOwnProgress(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test on a fixture course; skipped with -short")
	}
	root := t.TempDir()
	// The runner's results cache moves to a folder of the test's, wherever
	// this OS keeps it; the go command's build cache stays where it was.
	for _, v := range []string{"GOCACHE", "GOMODCACHE"} {
		out, err := exec.Command("go", "env", v).Output()
		require.NoError(t, err, "go env %s", v)
		t.Setenv(v, strings.TrimSpace(string(out)))
	}
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	t.Setenv("HOME", cache)
	t.Setenv("LocalAppData", cache)
	const test = "package p\n\nimport \"testing\"\n\nfunc TestOne(t *testing.T) {\n\tif One() != 1 {\n\t\tt.Error(\"One() != 1 (task 1)\")\n\t}\n}\n"
	files := map[string]string{
		"go.mod": "module example.com/fixture\n\ngo 1.26\n",
		"course.yaml": "steps:\n" +
			"  - dir: 01-stock-service\n    title: \"01\"\n    tasks:\n      - {task: 1, title: 'One', files: [], run: 'TestOne', hints: hints/task-1.md}\n" +
			"  - dir: 03-menu-v2\n    title: \"03\"\n    tasks:\n      - {task: 1, title: 'One', files: [p.go], run: 'TestOne', hints: hints/task-1.md}\n",
		"01-stock-service/p.go":      "package p\n\nfunc One() int { return 1 }\n",
		"01-stock-service/p_test.go": test,
		"03-menu-v2/p.go":            "package p\n\n// TODO(task 1): return 1.\nfunc One() int { return 0 }\n",
		"03-menu-v2/p_test.go":       test,
	}
	for name, body := range files {
		path := filepath.Join(root, filepath.FromSlash(name))
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, []byte(body), 0o644))
	}
	got, err := ownProgress(t.Context(), root, []string{"01-stock-service", "03-menu-v2"}, func(string) {})
	require.NoError(t, err, "ownProgress on the fixture course")
	assert.Equal(t, map[string]string{"03-menu-v2": "0 of 1 tasks — measuring your starter"}, got, "the unfinished steps")
}
