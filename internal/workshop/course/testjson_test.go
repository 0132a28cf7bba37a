package course

// The classification of a starter's `go test -json` run, proved on streams
// recorded from real runs of Go 1.26 (trimmed): the red an exercise should
// start with, and every wrong kind of red.

import (
	"io"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

const (
	// Two tests, one failing in a subtest with a message: the right red.
	failingRun = `{"Action":"start","Package":"fx/fail"}
{"Action":"run","Package":"fx/fail","Test":"TestA"}
{"Action":"output","Package":"fx/fail","Test":"TestA","Output":"=== RUN   TestA\n"}
{"Action":"run","Package":"fx/fail","Test":"TestA/sub_one"}
{"Action":"output","Package":"fx/fail","Test":"TestA/sub_one","Output":"=== RUN   TestA/sub_one\n"}
{"Action":"output","Package":"fx/fail","Test":"TestA/sub_one","Output":"    f_test.go:3: want 1, got 2 (task 1)\n"}
{"Action":"output","Package":"fx/fail","Test":"TestA/sub_one","Output":"--- FAIL: TestA/sub_one (0.00s)\n"}
{"Action":"fail","Package":"fx/fail","Test":"TestA/sub_one","Elapsed":0}
{"Action":"output","Package":"fx/fail","Test":"TestA","Output":"--- FAIL: TestA (0.00s)\n"}
{"Action":"fail","Package":"fx/fail","Test":"TestA","Elapsed":0}
{"Action":"run","Package":"fx/fail","Test":"TestB"}
{"Action":"output","Package":"fx/fail","Test":"TestB","Output":"=== RUN   TestB\n"}
{"Action":"output","Package":"fx/fail","Test":"TestB","Output":"--- PASS: TestB (0.00s)\n"}
{"Action":"pass","Package":"fx/fail","Test":"TestB","Elapsed":0}
{"Action":"output","Package":"fx/fail","Output":"FAIL\n"}
{"Action":"output","Package":"fx/fail","Output":"FAIL\tfx/fail\t0.021s\n"}
{"Action":"fail","Package":"fx/fail","Elapsed":0.021}
`
	passingRun = `{"Action":"start","Package":"fx/pass"}
{"Action":"run","Package":"fx/pass","Test":"TestA"}
{"Action":"output","Package":"fx/pass","Test":"TestA","Output":"--- PASS: TestA (0.00s)\n"}
{"Action":"pass","Package":"fx/pass","Test":"TestA","Elapsed":0}
{"Action":"output","Package":"fx/pass","Output":"ok  \tfx/pass\t0.016s\n"}
{"Action":"pass","Package":"fx/pass","Elapsed":0.017}
`
	buildFailure = `{"ImportPath":"fx/build [fx/build.test]","Action":"build-output","Output":"# fx/build [fx/build.test]\n"}
{"ImportPath":"fx/build [fx/build.test]","Action":"build-output","Output":"build/f_test.go:3:28: undefined: undefinedThing\n"}
{"ImportPath":"fx/build [fx/build.test]","Action":"build-fail"}
{"Action":"start","Package":"fx/build"}
{"Action":"output","Package":"fx/build","Output":"FAIL\tfx/build [build failed]\n"}
{"Action":"fail","Package":"fx/build","Elapsed":0,"FailedBuild":"fx/build [fx/build.test]"}
`
	// go test -vet=all: go vet's complaint fails the build.
	vetFailure = `{"ImportPath":"fx/vet [fx/vet.test]","Action":"build-output","Output":"# fx/vet\n"}
{"ImportPath":"fx/vet [fx/vet.test]","Action":"build-output","Output":"# [fx/vet]\n"}
{"ImportPath":"fx/vet [fx/vet.test]","Action":"build-output","Output":"./a.go:5:33: the cancel function returned by context.WithTimeout should be called, not discarded, to avoid a context leak\n"}
{"ImportPath":"fx/vet [fx/vet.test]","Action":"build-fail"}
{"Action":"start","Package":"fx/vet"}
{"Action":"output","Package":"fx/vet","Output":"FAIL\tfx/vet [build failed]\n"}
{"Action":"fail","Package":"fx/vet","Elapsed":0,"FailedBuild":"fx/vet [fx/vet.test]"}
`
	// A stub that panics: the testing package still reports the test as failed.
	panickingRun = `{"Action":"start","Package":"fx/panic"}
{"Action":"run","Package":"fx/panic","Test":"TestA"}
{"Action":"output","Package":"fx/panic","Test":"TestA","Output":"=== RUN   TestA\n"}
{"Action":"output","Package":"fx/panic","Test":"TestA","Output":"--- FAIL: TestA (0.00s)\n"}
{"Action":"output","Package":"fx/panic","Test":"TestA","Output":"panic: assignment to entry in nil map [recovered, repanicked]\n"}
{"Action":"output","Package":"fx/panic","Test":"TestA","Output":"\n"}
{"Action":"output","Package":"fx/panic","Test":"TestA","Output":"goroutine 19 [running]:\n"}
{"Action":"fail","Package":"fx/panic","Test":"TestA","Elapsed":0}
{"Action":"output","Package":"fx/panic","Output":"FAIL\tfx/panic\t0.017s\n"}
{"Action":"fail","Package":"fx/panic","Elapsed":0.045}
`
	// A stub that blocks: no test fails, the binary is stopped by -timeout.
	timedOutRun = `{"Action":"start","Package":"fx/timeout"}
{"Action":"run","Package":"fx/timeout","Test":"TestA"}
{"Action":"output","Package":"fx/timeout","Test":"TestA","Output":"=== RUN   TestA\n"}
{"Action":"output","Package":"fx/timeout","Test":"TestA","Output":"panic: test timed out after 1s\n"}
{"Action":"output","Package":"fx/timeout","Test":"TestA","Output":"\trunning tests:\n"}
{"Action":"output","Package":"fx/timeout","Test":"TestA","Output":"\t\tTestA (1s)\n"}
{"Action":"output","Package":"fx/timeout","Test":"TestA","Output":"\n"}
{"Action":"output","Package":"fx/timeout","Test":"TestA","Output":"goroutine 5 [running]:\n"}
{"Action":"output","Package":"fx/timeout","Test":"TestA","Output":"testing.(*M).startAlarm.func1()\n"}
{"Action":"output","Package":"fx/timeout","Test":"TestA","Output":"\t/usr/local/go/src/testing/testing.go:2802 +0x354\n"}
{"Action":"output","Package":"fx/timeout","Test":"TestA","Output":"\n"}
{"Action":"output","Package":"fx/timeout","Test":"TestA","Output":"goroutine 19 [sleep]:\n"}
{"Action":"output","Package":"fx/timeout","Test":"TestA","Output":"time.Sleep(0x34630b8a000)\n"}
{"Action":"output","Package":"fx/timeout","Test":"TestA","Output":"\t/usr/local/go/src/runtime/time.go:363 +0x165\n"}
{"Action":"output","Package":"fx/timeout","Test":"TestA","Output":"fx/timeout.TestA(0xde359654248?)\n"}
{"Action":"output","Package":"fx/timeout","Test":"TestA","Output":"\t/tmp/fx/timeout/f_test.go:3 +0x1d\n"}
{"Action":"output","Package":"fx/timeout","Output":"FAIL\tfx/timeout\t1.019s\n"}
{"Action":"fail","Package":"fx/timeout","Elapsed":1.02}
`
	// TestMain prints and exits 1 before any test runs.
	testMainFailure = `{"Action":"start","Package":"fx/testmain"}
{"Action":"output","Package":"fx/testmain","Output":"setup failed\n"}
{"Action":"output","Package":"fx/testmain","Output":"FAIL\tfx/testmain\t0.020s\n"}
{"Action":"fail","Package":"fx/testmain","Elapsed":0.023}
`
	// A runtime fatal error is not a panic but kills the binary all the same.
	deadlockRun = `{"Action":"start","Package":"fx/deadlock"}
{"Action":"run","Package":"fx/deadlock","Test":"TestA"}
{"Action":"output","Package":"fx/deadlock","Test":"TestA","Output":"fatal error: all goroutines are asleep - deadlock!\n"}
{"Action":"output","Package":"fx/deadlock","Output":"FAIL\tfx/deadlock\t0.010s\n"}
{"Action":"fail","Package":"fx/deadlock","Elapsed":0.01}
`
)

func TestParseTestJSON(t *testing.T) {
	run := ParseTestJSON(strings.NewReader(failingRun))
	assert.Equal(t, "fail", run.Result, "the package's result")
	assert.InDelta(t, 0.021, run.Elapsed, 1e-9, "the package's elapsed seconds")
	assert.Equal(t, []string{"TestA", "TestA/sub_one", "TestB"}, run.Ran, "tests that ran")
	assert.Equal(t, []string{"TestA/sub_one", "TestA"}, run.Failed, "tests that failed, innermost first")

	build := ParseTestJSON(strings.NewReader(buildFailure))
	assert.True(t, build.BuildFailed, "a build-fail event is a build failure")
	assert.Contains(t, build.BuildOutput, "undefined: undefinedThing", "the compiler's message is kept")

	garbled := ParseTestJSON(strings.NewReader("go: something went wrong\n"))
	assert.Equal(t, "", garbled.Result, "no package event, no result")
	assert.Equal(t, []string{"go: something went wrong"}, garbled.Output, "a line that is not JSON is kept as output")
}

func TestStarterProblem(t *testing.T) {
	t.Run("failing assertions within budget are the right red", func(t *testing.T) {
		assert.NoError(t, StarterProblem(ParseTestJSON(strings.NewReader(failingRun)), time.Second))
	})

	for _, tc := range []struct {
		name   string
		stream string
		budget time.Duration
		want   []string // fragments of the message
	}{
		{"tests that pass", passingRun, time.Second,
			[]string{"its tests pass on the starter: an exercise must start red"}},
		{"a build failure", buildFailure, time.Second,
			[]string{"the step does not build", "undefined: undefinedThing", "a starter must build"}},
		{"a panic", panickingRun, time.Second,
			[]string{"the tests crashed in TestA (panic: assignment to entry in nil map [recovered, repanicked])", "never block or panic"}},
		{"a time-out", timedOutRun, time.Minute,
			[]string{"the tests hung in TestA and were stopped (panic: test timed out after 1s)", "fail fast",
				"\t\tTestA (1s)", "goroutine 19 [sleep]:\n\ttime.Sleep(0x34630b8a000)", "fx/timeout.TestA("}},
		{"a fatal runtime error", deadlockRun, time.Second,
			[]string{"the tests crashed in TestA (fatal error: all goroutines are asleep - deadlock!)"}},
		{"a failure outside any test", testMainFailure, time.Second,
			[]string{"the test binary failed, but no test did", "TestMain", "setup failed"}},
		{"a red run over budget", failingRun, 10 * time.Millisecond,
			[]string{"its tests took 21ms to fail, over the budget of 10ms"}},
		{"no result at all", "go: cannot find main module\n", time.Second,
			[]string{"go test gave no result", "cannot find main module"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := StarterProblem(ParseTestJSON(strings.NewReader(tc.stream)), tc.budget)
			if assert.Error(t, err, "starterProblem must reject %s", tc.name) {
				for _, want := range tc.want {
					assert.Contains(t, err.Error(), want, "the message for %s", tc.name)
				}
			}
		})
	}
}

func TestSolutionProblem(t *testing.T) {
	assert.Empty(t, SolutionProblem(ParseTestJSON(strings.NewReader(passingRun))), "a passing run")
	assert.Contains(t, SolutionProblem(ParseTestJSON(strings.NewReader(failingRun))),
		"2 tests and subtests fail (TestA/sub_one, TestA)", "a failing run names its failures")
	assert.Contains(t, SolutionProblem(ParseTestJSON(strings.NewReader(failingRun))),
		"want 1, got 2 (task 1)", "and quotes their assertions")
	assert.Contains(t, SolutionProblem(ParseTestJSON(strings.NewReader(buildFailure))),
		"undefined: undefinedThing", "a build failure quotes the compiler")
}

func TestCrashExcerpt(t *testing.T) {
	run := ParseTestJSON(strings.NewReader(timedOutRun))
	excerpt := crashExcerpt(run, "panic: test timed out after 1s", 40)
	assert.Contains(t, excerpt, "fx/timeout.TestA(", "the stack of the goroutine blocked in the package under test")
	assert.NotContains(t, excerpt, "startAlarm", "the testing package's own goroutines are left out")
	assert.Equal(t, "panic: test timed out after 1s\n[… 9 more lines]", crashExcerpt(run, "panic: test timed out after 1s", 1), "an excerpt over max lines")
}

func stringsReader(s string) *strings.Reader { return strings.NewReader(s) }

func TestReadTestJSONPackages(t *testing.T) {
	runs := readTestJSON(strings.NewReader(failingRun+buildFailure+passingRun+"go: warning\n"), nil)
	var pkgs []string
	for _, r := range runs {
		pkgs = append(pkgs, r.Package)
	}
	assert.Equal(t, []string{"fx/fail", "fx/build", "fx/pass", ""}, pkgs, "one run per package, in order; go's own lines apart")
	assert.True(t, runs[1].BuildFailed, "the build failure is fx/build's")
	assert.False(t, runs[0].BuildFailed, "and not fx/fail's")
	assert.Equal(t, "pass", runs[2].Outcome["TestA"], "each test's outcome")
	assert.Equal(t, "fail", runs[0].Outcome["TestA/sub_one"], "subtests too")
	assert.True(t, IsVetFailure(ParseTestJSON(strings.NewReader(vetFailure)).BuildOutput), "vet's complaint is told from the compiler's")
	assert.False(t, IsVetFailure(runs[1].BuildOutput), "the compiler's complaint is no vet failure")
}

// ParseTestJSON reads a `go test -json` stream of one package; lines that
// are not JSON are kept as output of the package.
func ParseTestJSON(r io.Reader) TestRun {
	runs := readTestJSON(r, nil)
	run := newRun("")
	for _, p := range runs {
		if p.Package != "" {
			run = p
			break
		}
	}
	for _, p := range runs {
		if p != run {
			run.Output = append(run.Output, p.Output...)
		}
	}
	return *run
}
