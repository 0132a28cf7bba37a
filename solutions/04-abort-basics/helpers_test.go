package abort

import (
	"context"
	"regexp"
	"testing"
	"testing/synctest"
	"time"

	"go.uber.org/goleak"
)

// returnsAt runs f in a goroutine of the synctest bubble and returns what f
// returned, after checking in virtual time that it returned exactly at: not
// at at-1ns, and no later than at. Otherwise it fails t, saying fix.
func returnsAt[T any](t *testing.T, what string, at time.Duration, fix string, f func() T) T {
	t.Helper()
	done := make(chan T, 1)
	go func() { done <- f() }()
	if at > 0 {
		time.Sleep(at - time.Nanosecond)
		synctest.Wait()
		select {
		case v := <-done:
			t.Fatalf("%s returned %v at %v; want it still waiting", what, v, at-time.Nanosecond)
		default:
		}
		time.Sleep(time.Nanosecond)
	}
	synctest.Wait()
	select {
	case v := <-done:
		return v
	default:
		t.Fatalf("%s still waiting at %v; want it to return (%s)", what, at, fix)
		panic("unreachable")
	}
}

// newCtx returns, in a synctest bubble, a context with a deadline d from now,
// cancelled with reason at cancelAt (0: never).
func newCtx(d, cancelAt time.Duration, reason error) (context.Context, context.CancelFunc) {
	ctx, cancelDeadline := context.WithTimeout(context.Background(), d)
	ctx, cancel := context.WithCancelCause(ctx)
	if cancelAt > 0 {
		time.AfterFunc(cancelAt, func() { cancel(reason) })
	}
	return ctx, func() { cancel(nil); cancelDeadline() }
}

// leaked describes the first goroutine started since before that is still
// running (goleak waits a moment for those on their way out), or is "".
func leaked(before goleak.Option) string {
	err := goleak.Find(before)
	if err == nil {
		return ""
	}
	m := regexp.MustCompile(`in state ([^,]+), with (?:.*/)?(\S+) on top`).FindStringSubmatch(err.Error())
	if m == nil {
		return err.Error()
	}
	return "a goroutine still in " + m[1] + " in " + m[2]
}
