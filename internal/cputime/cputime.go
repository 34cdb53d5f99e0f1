// Package cputime reads the CPU time the process has used, for the benchmarks that report
// work per CPU-second: on a machine shared with other work, CPU per operation moves much less
// than wall time per operation.
package cputime

import (
	"syscall"
	"testing"
	"time"
)

// Process returns the user and system CPU time every thread of this process has used so far.
// It ends tb's test if the kernel cannot tell.
func Process(tb testing.TB) time.Duration {
	tb.Helper()
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
