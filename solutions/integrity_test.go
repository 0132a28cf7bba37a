package solutions

// The workshop's integrity check (see README.md in this folder): for every
// step folder at the top of the module, the exercise starts red, fairly, and
// its README's tasks, TODOs and hints agree. The code is shared with
// `go tool workshop verify` (internal/workshop/course); the solutions' own
// tests are the other packages of this `go test ./solutions/...` run.

import (
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/icecreamcorp/go-cancellation-workshop/internal/workshop/course"

	// Build order, not code. go test ./solutions/... starts this test as
	// soon as its binary links, and the check then runs a go test of its own
	// on every starter. Were this binary free of what the starters' tests
	// import, that inner go test would compile the HTTP stack and the test
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

func TestIntegrity(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("the go command is not on the PATH: the integrity check runs go test on every starter")
	}
	wd, err := os.Getwd()
	if err != nil {
		t.Fatalf("finding the working folder: %v", err)
	}
	root, err := course.ModuleRoot(wd)
	if err != nil {
		t.Fatalf("finding the module's root from %s: %v", wd, err)
	}

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
					for _, n := range c.Notes {
						t.Logf("%s: %s", sr.Step.Name, n)
					}
					for _, p := range c.Reported {
						t.Logf("%s: reported, not failed yet: %s", sr.Step.Name, p)
					}
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
