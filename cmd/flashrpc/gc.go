package main

import (
	"os"
	"runtime/debug"
)

// defaultGCPercent is the garbage collector's target when GOGC is not set. The node's Go heap is
// small (tens of MB: Pebble's block cache and go-ethereum's trie caches live outside it), so at
// Go's default of 100 the collector runs several times per heavy request: measured on one core,
// it took 10-30% of eth_estimateGas and eth_simulateV1, and most of the CPU left in a full-range
// eth_getLogs. At 400 those requests ran 10-40% faster, for a heap that may grow to five times
// what is live instead of twice. GOGC in the environment overrides it, as for any Go program.
const defaultGCPercent = 400

// setGCPercent applies defaultGCPercent unless GOGC is set.
func setGCPercent() {
	if _, ok := os.LookupEnv("GOGC"); !ok {
		debug.SetGCPercent(defaultGCPercent)
	}
}
