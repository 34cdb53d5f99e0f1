// Package cputime reads the CPU time the process has used, for the benchmarks that report
// work per CPU-second: on a machine shared with other work, CPU per operation moves much less
// than wall time per operation.
package cputime

import (
	"syscall"
	"testing"
	"time"
)

// Used returns the user and system CPU time every thread of this process has used so far.
func Used() (time.Duration, error) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, err
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), nil
}

// Process returns Used's time for a benchmark, and ends tb's test if the kernel cannot tell.
func Process(tb testing.TB) time.Duration {
	tb.Helper()
	d, err := Used()
	if err != nil {
		tb.Fatal(err)
	}
	return d
}
