// Package leakprofile proves what step 06's README says of Go 1.26's
// goroutine leak profile: built with GOEXPERIMENT=goroutineleakprofile,
// pprof.Lookup("goroutineleak") reports task 2's bare send, a goroutine
// blocked for ever on a channel that nothing can reach any more.
//
// Its test builds only under that experiment, so a plain go test skips it;
// .ci/run runs it:
//
//	GOEXPERIMENT=goroutineleakprofile go test -run TestGoroutineLeakProfile ./internal/leakprofile/
package leakprofile
