package main

import (
	"os"
	"runtime"
	"strconv"
)

// cpus is the number of CPUs the Go runtime found for this process at start (its GOMAXPROCS
// from the affinity mask and the cgroup's CPU limit, or GOMAXPROCS from the environment).
// Defaults counted per CPU (--rpc.evm.concurrency) use it: GOMAXPROCS itself is one higher
// while a database job runs (kvstore, background.go).
var cpus = runtime.GOMAXPROCS(0)

// lowerBackgroundJobs runs the database's flushes and compactions at a lower priority than the
// node's own work, each with a P of its own (lower: kvstore.LowerBackgroundPriority). A
// compaction started by a block's write took a core from the sequencer's next flashblock at the
// block boundary; at the lower priority the kernel gives the node's threads the cores first
// (docs/benchmarks.md, "The block boundary under load", sessions 14 and 15).
//
// It is not done when GOMAXPROCS is set in the environment (the node then has exactly the Ps it
// says, which the jobs' Ps would change), nor under a cgroup CPU limit below the CPUs the
// process may run on: there its threads compete for the limit on cores of their own, and a
// priority does not rank them.
func lowerBackgroundJobs(lower func() bool) {
	if n, err := strconv.Atoi(os.Getenv("GOMAXPROCS")); err == nil && n > 0 {
		return // the runtime's own reading of it
	}
	if cpus < runtime.NumCPU() {
		return
	}
	lower()
}
