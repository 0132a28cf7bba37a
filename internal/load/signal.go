package load

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

// stopSignals stop the lab as Ctrl-C (os.Interrupt) does: everything it
// started stopped, its temporary folder removed, exit code 128+N. A closed
// terminal sends SIGHUP, kill sends SIGTERM; each would otherwise end the
// process at once and leave the services running and the binaries on disk.
// On Windows, os/signal delivers SIGTERM for a closed console window, a
// logoff or a shutdown (and Windows ends the process soon after, whatever
// it is doing), and never SIGHUP; listing it there is harmless.
var stopSignals = []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP}

// signalled is the cause of a lab stopped by a signal.
type signalled struct{ sig os.Signal }

func (s signalled) Error() string {
	switch s.sig {
	case os.Interrupt:
		return "stopped by Ctrl-C (SIGINT)"
	case syscall.SIGTERM:
		return "stopped by SIGTERM"
	case syscall.SIGHUP:
		return "stopped by SIGHUP (its terminal closed)"
	}
	return fmt.Sprintf("stopped by %v", s.sig)
}

// exitCode is the shell's convention for a process ended by signal N:
// 128+N (130 for Ctrl-C, 143 for SIGTERM, 129 for SIGHUP).
func (s signalled) exitCode() int {
	if n, ok := s.sig.(syscall.Signal); ok {
		return 128 + int(n)
	}
	return 1
}

// onStopSignal returns a copy of ctx that is cancelled, with a signalled
// cause, when one of stopSignals arrives. stop stops listening.
func onStopSignal(ctx context.Context) (_ context.Context, stop func()) {
	ctx, cancel := context.WithCancelCause(ctx)
	sigs := make(chan os.Signal, 1) // buffered, as signal.Notify asks
	signal.Notify(sigs, stopSignals...)
	go func() {
		select {
		case sig := <-sigs:
			cancel(signalled{sig})
		case <-ctx.Done():
		}
	}()
	return ctx, func() { signal.Stop(sigs); cancel(nil) }
}
