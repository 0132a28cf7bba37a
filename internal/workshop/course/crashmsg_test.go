package course

import (
	"strings"
	"testing"
)

// A crash shows what the tests logged before it: often the message that
// names the fix, which the panic's stack does not.
func TestCrashShowsTheTestsMessages(t *testing.T) {
	run := ParseTestJSON(strings.NewReader(`{"Action":"run","Package":"fx/p","Test":"TestPool"}
{"Action":"output","Package":"fx/p","Test":"TestPool","Output":"=== RUN   TestPool\n"}
{"Action":"output","Package":"fx/p","Test":"TestPool","Output":"    pool_test.go:80: Render = ctx error, want no render (if Acquire fails, return context.Cause(ctx): no Release)\n"}
{"Action":"output","Package":"fx/p","Test":"TestPool","Output":"panic: semaphore: released more than held [recovered, repanicked]\n"}
{"Action":"output","Package":"fx/p","Test":"TestPool","Output":"\n"}
{"Action":"output","Package":"fx/p","Test":"TestPool","Output":"goroutine 7 [running]:\n"}
{"Action":"fail","Package":"fx/p","Test":"TestPool","Elapsed":0}
{"Action":"fail","Package":"fx/p","Elapsed":0.1}
`))
	got := RunProblem(&run, "")
	for _, want := range []string{"the tests crashed in TestPool", "What the tests said before it:", "pool_test.go:80: Render = ctx error", "panic: semaphore"} {
		if !strings.Contains(got, want) {
			t.Errorf("RunProblem of a crash after a failed check:\n%s\nwant it to hold %q", got, want)
		}
	}
	if strings.Index(got, "pool_test.go:80") > strings.LastIndex(got, "panic: semaphore") {
		t.Errorf("RunProblem:\n%s\nwant the tests' message before the stack", got)
	}
}
