package load

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

// signalled is the cause of a lab stopped by a signal.
type signalled struct{ sig syscall.Signal }

func (s signalled) Error() string { return fmt.Sprintf("stopped by signal %d (%v)", s.sig, s.sig) }

// onStopSignal returns a copy of ctx cancelled, with a signalled cause, when
// Ctrl-C (SIGINT), kill (SIGTERM) or a closed terminal (SIGHUP) arrives: each
// would otherwise end the process at once and leave the services running
// and the binaries on disk. On Windows, os/signal delivers SIGTERM for a
// closed console window, a logoff or a shutdown, and never SIGHUP. stop
// stops listening.
func onStopSignal(ctx context.Context) (_ context.Context, stop func()) {
	ctx, cancel := context.WithCancelCause(ctx)
	sigs := make(chan os.Signal, 1) // buffered, as signal.Notify asks
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	go func() {
		select {
		case sig := <-sigs:
			cancel(signalled{sig.(syscall.Signal)})
		case <-ctx.Done():
		}
	}()
	return ctx, func() { signal.Stop(sigs); cancel(nil) }
}
