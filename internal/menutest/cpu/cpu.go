// Package cpu reads how much CPU time this process has used, for
// benchmarks that report a cost per operation robust to a busy machine:
// wall-clock time per operation grows when other processes take the CPU,
// the process's own CPU time much less.
//
//	start := cpu.Time()
//	for b.Loop() { … }
//	b.ReportMetric(float64(cpu.Time()-start)/float64(b.N), "cpu-ns/op")
package cpu

import "time"

// Time returns the CPU time the process has used so far, user and system,
// on every thread; 0 where the operating system offers no way to tell.
func Time() time.Duration { return processTime() }
