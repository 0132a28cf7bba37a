//go:build windows

package main

import (
	"os"

	"golang.org/x/sys/windows"
)

// vtOutput turns on escape sequences (colours, clearing the screen) in a
// Windows console, where older consoles keep them off; it returns what puts
// the console's mode back.
func vtOutput(f *os.File) func() {
	h := windows.Handle(f.Fd())
	var mode uint32
	if windows.GetConsoleMode(h, &mode) != nil || windows.SetConsoleMode(h, mode|windows.ENABLE_VIRTUAL_TERMINAL_PROCESSING) != nil {
		return func() {}
	}
	return func() { _ = windows.SetConsoleMode(h, mode) }
}

// jobStop: a Windows console has no job control; Ctrl-Z does nothing.
func jobStop() func() { return nil }
