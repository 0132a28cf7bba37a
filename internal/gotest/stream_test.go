package gotest

import (
	"io"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Each package is handed on as soon as its last event arrives, before the
// stream goes on: the overview prints a step's line while later steps'
// tests still run.
func TestReadTestJSONStreams(t *testing.T) {
	pr, pw := io.Pipe()
	got := make(chan *TestRun, 2)
	var rest []*TestRun
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		rest = Read(pr, func(r *TestRun) { got <- r })
	}()
	write := func(s string) {
		t.Helper()
		_, err := io.WriteString(pw, s)
		require.NoError(t, err, "writing the stream")
	}
	write(`{"Action":"start","Package":"m/01-a"}` + "\n" +
		`{"Action":"run","Package":"m/01-a","Test":"TestA"}` + "\n" +
		`{"Action":"start","Package":"m/02-b"}` + "\n" +
		`{"Action":"pass","Package":"m/01-a","Test":"TestA"}` + "\n" +
		"go: a line that is not JSON\n" +
		`{"Action":"pass","Package":"m/01-a","Elapsed":0.1}` + "\n")
	select {
	case run := <-got:
		assert.Equal(t, "m/01-a", run.Package, "the first package to end")
		assert.Equal(t, "pass", run.Result, "its result")
		assert.Equal(t, "pass", run.Outcome["TestA"], "its test")
	case <-time.After(time.Minute):
		require.FailNow(t, "01-a was not handed on when its last event came")
	}
	write(`{"Action":"run","Package":"m/02-b","Test":"TestB"}` + "\n")
	require.NoError(t, pw.Close())
	select {
	case <-ended:
	case <-time.After(time.Minute):
		require.FailNow(t, "Read did not return at the stream's end")
	}
	assert.Empty(t, got, "02-b never ended: not handed on")
	require.Len(t, rest, 3, "every package, and the lines that are not JSON")
	assert.Equal(t, "m/02-b", rest[1].Package, "02-b")
	assert.Equal(t, "", rest[1].Result, "with no result")
	assert.Equal(t, []string{"go: a line that is not JSON"}, rest[2].Output, "the line that is not JSON, on its own")
}
