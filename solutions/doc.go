// Package solutions holds the finished version of every step of the workshop,
// one folder per step (solutions/01-stock-service, …), and the workshop's
// integrity check.
//
// The check lives in this package's tests: `go test ./solutions/...` proves,
// for every step folder it finds at the top of the repository, that the
// starter builds and vets clean, that its tests fail on the starter by failing
// assertions (not by a build error, a panic or a time-out), that the test
// files are identical in the step and its solution, and that every
// TODO(task N), every task of the step's README, its run command and its hints
// agree. The solutions pass their tests in the other packages of the same
// run. The code is shared with `go tool workshop verify`
// (internal/workshop/course). README.md in this folder says how a step is
// written.
package solutions
