package load

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
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
	r.Setup.Unfinished = map[string]string{"03-menu-v2": "0 of 9 tests pass — measuring your starter"}
	r.Results[0].Unfinished = []string{"03-menu-v2"}
	r.Goals = goals(r)
	return r
}

func TestOwnUnfinishedStep(t *testing.T) {
	r := ownReport()
	var b bytes.Buffer
	writeText(&b, r)
	out := b.String()
	assert.Contains(t, out, "your own steps, tested and built in 3.0s;", "what the run measured")
	assert.Contains(t, out, "v2 — menu v2\n  03-menu-v2: 0 of 9 tests pass — measuring your starter\n", "the unfinished step, under v2's heading:\n%s", out)
	assert.Regexp(t, `\n  not judged\s+v2 stock work for callers who had left .* — built from your unfinished 03-menu-v2\n`, out, "v2's goal")
	assert.Regexp(t, `\n  met\s+v3 stock work for callers who had left`, out, "v3's goal, from finished steps")
	assert.Contains(t, renderHTML(r), "03-menu-v2: 0 of 9 tests pass — measuring your starter", "the HTML report names it too")
}

func TestCrossChecks(t *testing.T) {
	assert.Empty(t, crossChecks(fixedReport()), "warnings for figures that hold together")

	t.Run("a v2 that never answers 504", func(t *testing.T) {
		r := fixedReport()
		v2 := r.Results[0]
		v2.Statuses, v2.Waste.PastDeadline = map[int]int{200: 2000}, 415
		warns := crossChecks(r)
		require.Len(t, warns, 1, "warnings: %q", warns)
		assert.Contains(t, warns[0], "v2: 415 calls outlived the menu's 250ms timeout, but it answered 0 × 504", "the warning")
	})

	t.Run("a v1 that answers 501 to everything", func(t *testing.T) {
		r := fixedReport()
		r.Results = []*Result{{Version: "v1", Requests: 12904, Statuses: map[int]int{501: 12904}}}
		warns := crossChecks(r)
		require.Len(t, warns, 1, "warnings: %q", warns)
		assert.Contains(t, warns[0], "v1: 12904 of 12904 answers were 501 × 12904; a finished v1 answers only 200", "the warning")
	})

	t.Run("a close match and a rare odd status are no warning", func(t *testing.T) {
		r := fixedReport()
		v2 := r.Results[0]
		v2.Statuses, v2.Waste.PastDeadline = map[int]int{200: 187, 502: 1, 504: 1932}, 1931
		assert.Empty(t, crossChecks(r), "1931 calls past the deadline for 1932 504s, one 502 in 2120")
	})

	t.Run("prints a warning and exits 1", func(t *testing.T) {
		r := fixedReport()
		r.Warnings = []string{"v2: 415 calls outlived the menu's 250ms timeout, but it answered 0 × 504"}
		var out, errOut bytes.Buffer
		assert.Equal(t, 1, finish(r, &out, &errOut), "exit code of a run with a warning")
		assert.Contains(t, out.String(), "\nWarnings: figures that do not hold together (the lab exits 1)\n  ! v2: 415 calls", "the text report")
		out.Reset()
		r.Setup.JSON = true
		assert.Equal(t, 1, finish(r, &out, &errOut), "exit code of a -json run with a warning")
		assert.Contains(t, errOut.String(), "workshop load: warning: v2: 415 calls", "-json: the warning on stderr as well")
		assert.Equal(t, 0, finish(fixedReport(), &out, &errOut), "exit code of a run without one")
	})
}

func TestMissingServices(t *testing.T) {
	root := filepath.Join(t.TempDir(), "work[1]") // a clone's path a glob would misread
	s := Setup{Versions: []string{"v1"}}
	_, err := servicePkgs(root, s)
	require.Error(t, err, "a clone without solutions/")
	assert.Contains(t, err.Error(), filepath.Join("solutions", "01-stock-service")+" in this clone", "the message names what is missing")
	assert.Contains(t, err.Error(), "go tool workshop load -own", "the message offers -own")

	s.Own = true
	_, err = servicePkgs(root, s)
	require.Error(t, err, "-own without the step folders")
	assert.Contains(t, err.Error(), "no Go files in "+filepath.Join(root, "01-stock-service"), "the message names the folder")

	for _, dir := range []string{"01-stock-service", "02-menu-v1"} {
		require.NoError(t, os.MkdirAll(filepath.Join(root, dir), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(root, dir, "main.go"), []byte("package main\n"), 0o644))
	}
	_, err = servicePkgs(root, s)
	assert.NoError(t, err, "-own with both folders")
}

// The HTML charts' areas are opaque, so that each shows the colour of its
// legend's swatch, and every swatch has the colour of its series' area.
func TestChartLegendColours(t *testing.T) {
	page := renderHTML(fixedReport())
	areas := regexp.MustCompile(`<polygon [^>]*fill="([^"]+)"([^>]*)><title>([^<]+)</title>`).FindAllStringSubmatch(page, -1)
	require.Len(t, areas, 2, "areas: v2 and v3 in flight")
	colour := map[string]string{}
	for _, a := range areas {
		assert.NotContains(t, a[2], "opacity", "area %s: a translucent area blends with the one behind it, and then matches no swatch", a[3])
		colour[a[3]] = a[1]
	}
	swatches := regexp.MustCompile(`<rect [^>]*fill="([^"]+)"([^>]*)/><text [^>]*>([^<]+)</text>`).FindAllStringSubmatch(page, -1)
	require.Len(t, swatches, 2, "legend swatches")
	for _, sw := range swatches {
		assert.NotContains(t, sw[2], "opacity", "swatch %s", sw[3])
		assert.Equal(t, colour[sw[3]], sw[1], "swatch of %s against its area", sw[3])
	}
	assert.Equal(t, "#d9822b", colour["v2"], "v2's area")
}

// ownProgress runs the tests of a fixture module: a finished
// 01-stock-service, a 02-menu-v1 halfway, a 03-menu-v2 still at its
// starter and a 05-menu-v3 that does not build.
func TestOwnProgress(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test on a fixture module; skipped with -short")
	}
	root := t.TempDir()
	const tests = "package p\n\nimport \"testing\"\n\nfunc TestOne(t *testing.T) {\n\tif One() != 1 {\n\t\tt.Error(\"One() != 1\")\n\t}\n}\n\n" +
		"func TestTwo(t *testing.T) {\n\tt.Run(\"sub\", func(t *testing.T) {\n\t\tif Two() != 2 {\n\t\t\tt.Error(\"Two() != 2\")\n\t\t}\n\t})\n}\n"
	files := map[string]string{
		"go.mod":                     "module example.com/fixture\n\ngo 1.26\n",
		"01-stock-service/p.go":      "package p\n\nfunc One() int { return 1 }\n\nfunc Two() int { return 2 }\n",
		"02-menu-v1/p.go":            "package p\n\nfunc One() int { return 1 }\n\nfunc Two() int { return 0 }\n",
		"03-menu-v2/p.go":            "package p\n\nfunc One() int { return 0 }\n\nfunc Two() int { return 0 }\n",
		"05-menu-v3/p.go":            "package p\n\nfunc One() int { return 1 }\n",
		"01-stock-service/p_test.go": tests, "02-menu-v1/p_test.go": tests, "03-menu-v2/p_test.go": tests, "05-menu-v3/p_test.go": tests,
	}
	for name, body := range files {
		path := filepath.Join(root, filepath.FromSlash(name))
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, []byte(body), 0o644))
	}
	got, err := ownProgress(t.Context(), root, []string{"01-stock-service", "02-menu-v1", "03-menu-v2", "05-menu-v3"})
	require.NoError(t, err, "ownProgress on the fixture module")
	assert.Equal(t, map[string]string{
		"02-menu-v1": "1 of 2 tests pass — measuring your unfinished step",
		"03-menu-v2": "0 of 2 tests pass — measuring your starter",
		"05-menu-v3": "its tests did not run (go test ./05-menu-v3 says why) — measuring it as it is",
	}, got, "the unfinished steps")
}
