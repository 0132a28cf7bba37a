package solutions

// The workshop's integrity check (see README.md in this folder): for every
// step folder at the top of the module, the exercise starts red, fairly, and
// its README's tasks, TODOs and hints agree (TestIntegrity); and every
// solution passes its step's tests (TestSolutions). The code is shared with
// `go tool workshop verify` (internal/workshop/course).

import (
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/icecreamcorp/go-cancellation-workshop/internal/workshop/course"

	// Build order, not code. go test ./solutions/... starts these tests as
	// soon as their binary links, and they then run a go test of their own
	// on every starter and every solution. Were this binary free of what the
	// steps' tests import, that inner go test would compile the HTTP stack and the test
	// kit a second time, at the same moment as the outer one: measured from
	// an empty build cache, net/http, crypto/tls, net, net/netip, log/slog
	// and runtime/cgo compiled twice (33 s of CPU more on a loaded 2-core
	// machine). Importing them here makes the outer go test compile them
	// first.
	_ "net/http/httptest"

	_ "github.com/icecreamcorp/go-cancellation-workshop/internal/fakestock"
	_ "github.com/icecreamcorp/go-cancellation-workshop/internal/leakcheck"
	_ "github.com/icecreamcorp/go-cancellation-workshop/internal/memnet"
	_ "github.com/icecreamcorp/go-cancellation-workshop/internal/menutest"
	_ "github.com/icecreamcorp/go-cancellation-workshop/internal/runtest"
)

// moduleRoot is the module's root, or skips the test when there is no go
// command to run there.
func moduleRoot(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("the go command is not on the PATH: the integrity check runs go test on every step")
	}
	wd, err := os.Getwd()
	if err != nil {
		t.Fatalf("finding the working folder: %v", err)
	}
	root, err := course.ModuleRoot(wd)
	if err != nil {
		t.Fatalf("finding the module's root from %s: %v", wd, err)
	}
	return root
}

// TestSolutions runs every step's tests on its solution: the solution's
// files put over the step's with go test -overlay, in one go test of every
// step, with -race when this binary is built with -race (raceBuilt). A
// failing test fails TestSolutions/<step>/<test>, with its output.
func TestSolutions(t *testing.T) {
	t.Parallel()
	root := moduleRoot(t)
	steps, err := course.Steps(root)
	if err != nil {
		t.Fatalf("listing the steps: %v", err)
	}
	args := []string{"-count=1", "-timeout=5m"}
	if raceBuilt {
		args = append(args, "-race")
	}
	if testing.Short() {
		args = append(args, "-short")
	}
	g := course.Go{Log: func(cmd string, took time.Duration) { t.Logf("%s (%.1fs)", cmd, took.Seconds()) }}
	runs, stderr, err := course.TestSolutions(t.Context(), g, root, steps, args...)
	if err != nil {
		t.Fatalf("running the solutions' tests: %v", err)
	}
	for _, step := range steps {
		t.Run(step.Name, func(t *testing.T) {
			run := runs[step.Name]
			switch {
			case run == nil:
				t.Fatalf("solutions/%s: no result from go test: %s", step.Name, stderr)
			case run.BuildFailed || (run.Result != "pass" && len(run.Failed) == 0):
				t.Fatalf("solutions/%s: %s", step.Name, course.SolutionProblem(*run))
			}
			for _, name := range run.Failed {
				if slices.ContainsFunc(run.Failed, func(sub string) bool { return strings.HasPrefix(sub, name+"/") }) {
					continue // a subtest of it failed: that one says why
				}
				var out []string
				for _, l := range run.ByTest[name] {
					if l := strings.TrimSpace(l); !strings.HasPrefix(l, "=== ") && !strings.HasPrefix(l, "--- ") {
						out = append(out, l)
					}
				}
				t.Run(name, func(t *testing.T) {
					t.Errorf("solutions/%s: %s fails on the solution:\n%s", step.Name, name, strings.Join(out, "\n"))
				})
			}
			t.Logf("solutions/%s: %d tests and subtests pass (%.2fs)", step.Name, len(run.Ran)-len(run.Failed), run.Elapsed)
		})
	}
}

func TestIntegrity(t *testing.T) {
	t.Parallel()
	root := moduleRoot(t)

	rep, err := course.Verify(t.Context(), root, course.VerifyOptions{
		Short:    testing.Short(),
		Progress: func(msg string) { t.Log(msg) },
		Go: course.Go{Log: func(cmd string, took time.Duration) {
			t.Logf("%s (%.1fs)", cmd, took.Seconds())
		}},
	})
	if err != nil {
		t.Fatalf("running the integrity check on %s: %v", root, err)
	}
	for _, p := range rep.Problems {
		t.Error(p)
	}
	for _, sr := range rep.Steps {
		t.Run(sr.Step.Name, func(t *testing.T) {
			for _, c := range sr.Checks {
				t.Run(c.Name, func(t *testing.T) {
					for _, p := range c.Problems {
						t.Errorf("%s: %s", sr.Step.Name, p)
					}
					if c.Skipped != "" && len(c.Problems) == 0 {
						t.Skipf("%s: %s", sr.Step.Name, c.Skipped)
					}
				})
			}
		})
	}
}
