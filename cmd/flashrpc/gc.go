package main

import (
	"flag"
	"fmt"
	"math"
	"os"
	"runtime/debug"

	"github.com/flashrpc/flashrpc/internal/memlimit"
)

// defaultGCPercent is the garbage collector's target when GOGC is not set. The node's Go heap is
// small (tens of MB: Pebble's block cache and go-ethereum's trie caches live outside it), so at
// Go's default of 100 the collector runs several times per heavy request: measured on one core,
// it took 10-30% of eth_estimateGas and eth_simulateV1, and most of the CPU left in a full-range
// eth_getLogs. At 400 those requests ran 10-40% faster, for a heap that may grow to five times
// what is live instead of twice. GOGC in the environment overrides it, as for any Go program.
const defaultGCPercent = 400

// setGCPercent applies defaultGCPercent unless GOGC is set, and the default memory limit
// (memlimit.Default: a share of the machine's or cgroup's memory) unless GOMEMLIMIT is set.
// --memory-limit replaces the latter when the command line gives it.
func setGCPercent() {
	if _, ok := os.LookupEnv("GOGC"); !ok {
		debug.SetGCPercent(defaultGCPercent)
	}
	if _, ok := os.LookupEnv("GOMEMLIMIT"); !ok {
		if limit := memlimit.Default(); limit > 0 {
			debug.SetMemoryLimit(limit)
		}
	}
}

// registerMemoryLimit adds --memory-limit to fs: parsing it sets the Go runtime's memory limit.
func registerMemoryLimit(fs *flag.FlagSet) {
	def := "off"
	if limit := memlimit.Default(); limit > 0 {
		def = memlimit.FormatSize(limit)
	}
	fs.Func("memory-limit", fmt.Sprintf("soft limit of the Go runtime's memory, in bytes or with a KiB, MiB, GiB or TiB suffix (0 = none); the garbage collector works harder near it, so that large refused inputs cannot raise memory without bound (default: %.0f%% of the machine's or cgroup's memory, here %s; GOMEMLIMIT also sets it)", memlimit.Share*100, def), func(s string) error {
		limit, err := memlimit.ParseSize(s)
		if err != nil {
			return err
		}
		if limit == 0 {
			limit = math.MaxInt64 // the runtime's "no limit"
		}
		debug.SetMemoryLimit(limit)
		return nil
	})
}
