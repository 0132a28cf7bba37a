// Package solutions holds the finished version of every step of the workshop,
// one folder per step (solutions/01-stock-service, …), and the workshop's
// integrity check.
//
// The check lives in this package's tests: `go test ./solutions/...` proves,
// for every step folder it finds at the top of the repository, that the
// starter builds and vets clean, that its tests fail on the starter by failing
// assertions (not by a build error, a panic or a time-out), that its tests
// live in the step alone, and that every TODO(task N), every task of the
// step's README, its run command and its hints agree (TestIntegrity); and
// that every solution passes its step's tests, put over the step with
// go test -overlay (TestSolutions). The proof of the mistake catalogs,
// TestCatalogs, runs only when asked (about 10 minutes):
//
//	go test ./solutions -run '^TestCatalogs$' -timeout 30m -v -args -catalogs
//
// README.md in this folder says how a step is written.
package solutions
