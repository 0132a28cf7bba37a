package abort

import (
	"context"
	"errors"
	"regexp"
	"testing"
	"testing/synctest"
	"time"

	"go.uber.org/goleak"
)

// returnsAt runs f in the synctest bubble and returns its result, after
// checking in virtual time that f returned at at exactly: not at at-1ns.
func returnsAt[T any](t *testing.T, what string, at time.Duration, fix string, f func() T) T {
	t.Helper()
	done := make(chan T, 1)
	go func() { done <- f() }()
	if at > 0 {
		time.Sleep(at - time.Nanosecond)
		synctest.Wait()
		if len(done) > 0 {
			t.Fatalf("%s returned %v at %v; want it still waiting", what, <-done, at-time.Nanosecond)
		}
		time.Sleep(time.Nanosecond)
	}
	synctest.Wait()
	if len(done) == 0 {
		t.Fatalf("%s still waiting at %v; want it to return (%s)", what, at, fix)
	}
	return <-done
}

// checkErr checks err against is (errors.Is must match each), not (must
// match none) and msg (the whole message, if not ""); nil is means want nil.
func checkErr(t *testing.T, what string, err error, is, not []error, msg, fix string) {
	t.Helper()
	if is == nil && err != nil {
		t.Fatalf("%s = %v; want nil (%s)", what, err, fix)
	}
	for _, want := range is {
		if !errors.Is(err, want) {
			t.Fatalf("%s = %v; want an error matching %v (%s)", what, err, want, fix)
		}
	}
	for _, not := range not {
		if errors.Is(err, not) {
			t.Fatalf("%s = %v; want no %v (%s)", what, err, not, fix)
		}
	}
	if msg != "" && err != nil && err.Error() != msg {
		t.Errorf("%s = %q; want %q (%s)", what, err, msg, fix)
	}
}

// newCtx returns a context with a deadline d from now (its cause: reason),
// cancelled with reason at cancelAt (0: never, < 0: at once) or by its cancel.
func newCtx(t *testing.T, d, cancelAt time.Duration, reason error) (context.Context, context.CancelFunc) {
	ctx, cancelDeadline := context.WithTimeoutCause(context.Background(), d, reason)
	ctx, cancel := context.WithCancelCause(ctx)
	if cancelAt < 0 {
		cancel(reason)
	} else if cancelAt > 0 {
		time.AfterFunc(cancelAt, func() { cancel(reason) })
	}
	t.Cleanup(func() { cancel(nil); cancelDeadline() })
	return ctx, func() { cancel(reason) }
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
