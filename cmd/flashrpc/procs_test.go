package main

import (
	"runtime"
	"testing"
)

// TestLowerBackgroundJobs checks when the node asks for the database's jobs at a lower
// priority: without GOMAXPROCS in the environment (or with a value the Go runtime ignores) and
// with all the CPUs it may run on.
func TestLowerBackgroundJobs(t *testing.T) {
	cpusBefore := cpus
	t.Cleanup(func() { cpus = cpusBefore })
	all := runtime.NumCPU()
	for _, tc := range []struct {
		name       string
		gomaxprocs string // "" = empty, which the runtime ignores
		cpus       int
		want       bool
	}{
		{name: "default", cpus: all, want: true},
		{name: "GOMAXPROCS=2", gomaxprocs: "2", cpus: all},
		{name: "GOMAXPROCS=0, ignored by the runtime", gomaxprocs: "0", cpus: all, want: true},
		{name: "GOMAXPROCS=x, ignored by the runtime", gomaxprocs: "x", cpus: all, want: true},
		{name: "a CPU limit below the CPUs", cpus: all - 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("GOMAXPROCS", tc.gomaxprocs)
			cpus = tc.cpus
			asked := false
			lowerBackgroundJobs(func() bool { asked = true; return true })
			if asked != tc.want {
				t.Errorf("lower priority asked for: %v, want %v", asked, tc.want)
			}
		})
	}
}
