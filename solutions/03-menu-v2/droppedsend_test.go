package main

import (
	"embed"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/icecreamcorp/go-cancellation-workshop/internal/menutest"
)

// source is this package as go test builds it.
//
//go:embed *.go
var source embed.FS

// Task 2: the one wrong answer that running the menu cannot catch. A send in
// a select with a default case, on a channel with no room, drops the result
// whenever the fetch finishes before fetchStockWithin waits for it: rare, and
// no test can make it happen on demand. So this test reads the source.
func TestResultIsNotDropped(t *testing.T) {
	dropped, err := menutest.DroppedSends(source)
	require.NoError(t, err, "reading the package's source")
	for _, d := range dropped {
		t.Error(d)
	}
}
