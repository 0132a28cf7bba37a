//go:build !windows

package main

import (
	"os"
	"os/signal"
	"syscall"
)

// vtOutput: terminals outside Windows take escape sequences as they are.
func vtOutput(*os.File) func() { return func() {} }

// jobStop returns what stops the job on Ctrl-Z, as the terminal would
// outside raw mode: every process of its group, since the go command that
// runs the runner (go tool) catches SIGTSTP to hand it on, and must stop
// too for the shell to take the terminal back; so SIGSTOP, which no process
// catches. It returns once fg continues the job: on SIGCONT, as kill may
// return before the stop takes the process. nil when SIGTSTP is ignored:
// whoever started the runner wants no job control.
func jobStop() func() {
	if signal.Ignored(syscall.SIGTSTP) {
		return nil
	}
	return func() {
		cont := make(chan os.Signal, 1)
		signal.Notify(cont, syscall.SIGCONT)
		defer signal.Stop(cont)
		if syscall.Kill(0, syscall.SIGSTOP) == nil {
			<-cont
		}
	}
}
