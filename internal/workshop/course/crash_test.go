package course

// Crashes routed to their task, on the output of real go test -json runs
// (testdata/crash: a panic in a goroutine, a synctest deadlock, a -timeout,
// a race report, and a panic outside any test).

import (
	"os"
	"strings"
	"testing"

	"github.com/icecreamcorp/go-cancellation-workshop/internal/gotest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCrashTask(t *testing.T) {
	tasks := []Task{
		{N: 1, Run: "TestBoom", Files: []string{"boom.go"}},
		{N: 2, Run: "TestDeadlock|TestRace", Files: []string{"work.go"}},
		{N: 3, Run: "TestHang", Files: []string{"work.go"}},
	}
	for _, tc := range []struct {
		file string
		want int
	}{
		{"boom", 1},     // the test whose output holds the panic
		{"deadlock", 2}, // synctest's "panic: deadlock: all goroutines in bubble are blocked"
		{"hang", 3},     // "panic: test timed out", with the tests still running
		{"outside", 2},  // no test: the first of the step's files in the stack, work.go
	} {
		run := readRun(t, tc.file)
		assert.Equal(t, tc.want, CrashTask(&run, "03-crash", tasks), "CrashTask of testdata/crash/%s.json", tc.file)
	}

	// The file the stack names decides when one task owns it, whatever test
	// the crash happened in: a crash in TestBoom whose frames are in work.go
	// belongs to the task whose files list work.go.
	own := []Task{
		{N: 1, Run: "TestBoom|TestRace", Files: []string{"boom.go"}},
		{N: 2, Run: "TestDeadlock", Files: []string{"work.go"}},
	}
	boom := readRun(t, "boom")
	assert.Equal(t, 2, CrashTask(&boom, "03-crash", own), "a panic in TestBoom (task 1's run) whose stack is in work.go, task 2's file")

	race := readRun(t, "race")
	assert.Equal(t, 0, CrashTask(&race, "03-crash", tasks), "a race report is no crash: its test fails")
	assert.Equal(t, 2, RaceTask(&race, "03-crash", tasks), "the race in work.go, during TestRace (task 2's run)")
	assert.Equal(t, 2, RaceTask(&race, "03-crash", own), "the race in work.go, task 2's file, during TestRace (task 1's run)")
	assert.True(t, strings.HasPrefix(RaceReport(&race), "WARNING: DATA RACE\n"), "RaceReport starts at the warning")
	assert.Contains(t, RaceReport(&race), "work.go:23", "and holds the stacks")
	assert.Equal(t, 0, RaceTask(&boom, "03-crash", tasks), "no race report: no task")
	assert.Equal(t, 2, blame([]string{"\tC:/Users/ada/work/03-crash/work.go:17 +0x3f"}, "03-crash", own, ""), "a Windows path in a stack")
	res := TaskResults(tasks[:2], &race)
	assert.False(t, res[1].Done, "the race fails the task whose run selects its test")
	assert.Contains(t, res[1].Failed, "TestRace", "and names the test")
	deadlock := readRun(t, "deadlock")
	line, _, _ := deadlock.Crash()
	first := strings.Join(strings.Split(crashExcerpt(deadlock, line, 40), "\n")[:6], "\n")
	assert.Contains(t, first, "work.go:17", "a deadlock's excerpt shows first the goroutine stuck in the step's code")
	assert.Equal(t, []string{"TestHang"}, timedOut(readRun(t, "hang").Output, "panic: test timed out after 3s"), "timedOut")
}

func readRun(t *testing.T, name string) gotest.TestRun {
	t.Helper()
	f, err := os.Open("testdata/crash/" + name + ".json")
	require.NoError(t, err, "opening the fixture")
	defer f.Close()
	return ParseTestJSON(f)
}
