//go:build race

package solutions

// raceBuilt: this test binary is built with -race (go test -race
// ./solutions/...), so the solutions' tests, which TestSolutions runs in a go
// test of its own, run with -race too: the outer go test's flags do not reach
// an inner one.
const raceBuilt = true
