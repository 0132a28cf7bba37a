package course

// Reading `go test -json`, proved on streams recorded from real runs of
// Go 1.26 (trimmed): a red run, a green one, and every way a run goes wrong.

import (
	"io"
	"strings"
	"testing"

	"github.com/icecreamcorp/go-cancellation-workshop/internal/gotest"
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

func TestCrashExcerpt(t *testing.T) {
	run := ParseTestJSON(strings.NewReader(timedOutRun))
	excerpt := crashExcerpt(run, "panic: test timed out after 1s", 40)
	assert.Contains(t, excerpt, "fx/timeout.TestA(", "the stack of the goroutine blocked in the package under test")
	assert.NotContains(t, excerpt, "startAlarm", "the testing package's own goroutines are left out")
	assert.Equal(t, "panic: test timed out after 1s\n[… 9 more lines]", crashExcerpt(run, "panic: test timed out after 1s", 1), "an excerpt over max lines")
}

func stringsReader(s string) *strings.Reader { return strings.NewReader(s) }

func TestReadTestJSONPackages(t *testing.T) {
	runs := gotest.Read(strings.NewReader(failingRun+buildFailure+passingRun+"go: warning\n"), nil)
	var pkgs []string
	for _, r := range runs {
		pkgs = append(pkgs, r.Package)
	}
	assert.Equal(t, []string{"fx/fail", "fx/build", "fx/pass", ""}, pkgs, "one run per package, in order; go's own lines apart")
	assert.True(t, runs[1].BuildFailed, "the build failure is fx/build's")
	assert.False(t, runs[0].BuildFailed, "and not fx/fail's")
	assert.Equal(t, "pass", runs[2].Outcome["TestA"], "each test's outcome")
	assert.Equal(t, "fail", runs[0].Outcome["TestA/sub_one"], "subtests too")
}

// ParseTestJSON reads a `go test -json` stream of one package; lines that
// are not JSON are kept as output of the package.
func ParseTestJSON(r io.Reader) gotest.TestRun {
	runs := gotest.Read(r, nil)
	run := &gotest.TestRun{Outcome: map[string]string{}, ByTest: map[string][]string{}}
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
