package leakcheck

import (
	"strings"
	"testing"
)

// recorder is a testing.TB that keeps failures instead of reporting them,
// so the check itself can be checked.
type recorder struct {
	testing.TB
	failed  bool
	cleanup func()
}

func (r *recorder) Helper()               {}
func (r *recorder) Cleanup(f func())      { r.cleanup = f }
func (r *recorder) Errorf(string, ...any) { r.failed = true }

func TestCheck(t *testing.T) {
	for _, leak := range []bool{false, true} {
		r := &recorder{TB: t}
		Check(r)
		stop, done := make(chan struct{}), make(chan struct{})
		go func() { <-stop; close(done) }()
		if !leak {
			close(stop)
			<-done
		}
		r.cleanup()
		if leak {
			close(stop)
		}
		if r.failed != leak {
			t.Errorf("a goroutine still blocked %v: got failed %v, want %v", leak, r.failed, leak)
		}
	}
}

func TestAdvice(t *testing.T) {
	if got := advice("goroutine 7 [IO wait]:\nnet/http.(*persistConn).readLoop(0xc0001)"); !strings.Contains(got, "resp.Body.Close()") {
		t.Errorf("advice(a persistConn's readLoop) = %q, want the body's Close named", got)
	}
	if got := advice("goroutine 7 [chan receive]:\nmain.work()"); got != "" {
		t.Errorf("advice(another leak) = %q, want none", got)
	}
}
