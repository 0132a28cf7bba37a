//go:build !race

package solutions

// raceBuilt: see race_test.go.
const raceBuilt = false
