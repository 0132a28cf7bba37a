//go:build !windows

package main

import "os"

// vtOutput: terminals outside Windows take escape sequences as they are.
func vtOutput(*os.File) func() { return func() {} }
