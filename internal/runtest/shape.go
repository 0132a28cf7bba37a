package runtest

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/icecreamcorp/go-cancellation-workshop/internal/leakcheck"
)

// Shape is what a service's main.go gives the tests of its server shape.
type Shape struct {
	Run         RunFunc
	Serve       ServeFunc
	DefaultAddr string         // -addr's default: loopback, as "localhost:4000"
	IdleTimeout *time.Duration // main.go's idleTimeout, shortened while a subtest runs
	ReadTimeout *time.Duration // main.go's readTimeout, likewise
}

// CheckShape runs, as subtests, what every service's main.go does whatever
// its lesson: listen on loopback unless told otherwise, close a keep-alive
// connection left idle and one whose declared body never comes, and report a
// shutdown whose grace ran out as an error (main exits 1).
func CheckShape(t *testing.T, s Shape) {
	t.Run("loopback by default", func(t *testing.T) {
		var usage strings.Builder
		s.Run(t.Context(), []string{"-h"}, &usage)
		_, addr, _ := strings.Cut(usage.String(), `(default "`) // -addr comes first
		addr, _, _ = strings.Cut(addr, `"`)
		if addr != s.DefaultAddr {
			t.Errorf("run -h: got -addr default %q, want %s (-addr :PORT listens on every interface)", addr, s.DefaultAddr)
		}
	})

	t.Run("idle connection closed", func(t *testing.T) {
		leakcheck.Check(t)
		defer func(d time.Duration) { *s.IdleTimeout = d }(*s.IdleTimeout)
		*s.IdleTimeout = 50 * time.Millisecond
		srv := Start(t, s.Run)
		if err := srv.IdleConn(t, "/", time.Second); err != nil {
			t.Errorf("%v (idleTimeout is 50ms here): set http.Server.IdleTimeout", err)
		}
	})

	t.Run("body never sent", func(t *testing.T) {
		leakcheck.Check(t)
		defer func(d time.Duration) { *s.ReadTimeout = d }(*s.ReadTimeout)
		*s.ReadTimeout = 50 * time.Millisecond
		srv := Start(t, s.Run)
		if err := srv.BodyNeverSent(t, "/", time.Second); err != nil {
			t.Errorf("%v (readTimeout is 50ms here): set http.Server.ReadTimeout", err)
		}
	})

	t.Run("grace runs out", func(t *testing.T) {
		leakcheck.Check(t)
		if err := OutliveGrace(t, s.Serve); !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("serve after a request outlived the grace: got %v, want context.DeadlineExceeded (not a clean shutdown: exit 1)", err)
		}
	})
}
