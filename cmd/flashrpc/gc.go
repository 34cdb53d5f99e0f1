package main

import (
	"bufio"
	"flag"
	"fmt"
	"math"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
)

// defaultGCPercent is the garbage collector's target when GOGC is not set. The node's Go heap is
// small (tens of MB: Pebble's block cache and go-ethereum's trie caches live outside it), so at
// Go's default of 100 the collector runs several times per heavy request: measured on one core,
// it took 10-30% of eth_estimateGas and eth_simulateV1, and most of the CPU left in a full-range
// eth_getLogs. At 400 those requests ran 10-40% faster, for a heap that may grow to five times
// what is live instead of twice. GOGC in the environment overrides it, as for any Go program.
const defaultGCPercent = 400

// memoryLimitShare is the part of the machine's memory, or of the cgroup's limit when it is
// lower, that the Go runtime keeps its memory under by default (--memory-limit). GOGC=400 lets
// garbage grow to four times the live heap; under the limit the collector runs as often as it
// takes to stay below it, so a burst of large inputs (2,000 refused transactions of 120 kB)
// costs CPU instead of raising the process's peak memory without bound. It is a soft limit:
// live data above it is kept (the runtime does not fail), and Pebble's caches outside the Go
// heap are not counted.
const memoryLimitShare = 0.8

// setGCPercent applies defaultGCPercent unless GOGC is set, and the default memory limit
// (memoryLimitShare of the machine's memory) unless GOMEMLIMIT is set. --memory-limit
// replaces the latter when the command line gives it.
func setGCPercent() {
	if _, ok := os.LookupEnv("GOGC"); !ok {
		debug.SetGCPercent(defaultGCPercent)
	}
	if _, ok := os.LookupEnv("GOMEMLIMIT"); !ok {
		if limit := defaultMemoryLimit(); limit > 0 {
			debug.SetMemoryLimit(limit)
		}
	}
}

// registerMemoryLimit adds --memory-limit to fs: parsing it sets the Go runtime's memory limit.
func registerMemoryLimit(fs *flag.FlagSet) {
	def := "off"
	if limit := defaultMemoryLimit(); limit > 0 {
		def = formatSize(limit)
	}
	fs.Func("memory-limit", fmt.Sprintf("soft limit of the Go runtime's memory, in bytes or with a KiB, MiB, GiB or TiB suffix (0 = none); the garbage collector works harder near it, so that large refused inputs cannot raise memory without bound (default: %.0f%% of the machine's or cgroup's memory, here %s; GOMEMLIMIT also sets it)", memoryLimitShare*100, def), func(s string) error {
		limit, err := parseSize(s)
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

// defaultMemoryLimit is memoryLimitShare of the lower of the machine's memory and the
// cgroup's memory limit; 0 when neither can be read.
func defaultMemoryLimit() int64 {
	total := machineMemory()
	if c := cgroupMemoryLimit(); c > 0 && (total == 0 || c < total) {
		total = c
	}
	return int64(float64(total) * memoryLimitShare)
}

// machineMemory is MemTotal of /proc/meminfo in bytes, 0 when it cannot be read.
func machineMemory() int64 {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "MemTotal:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err != nil {
				return 0
			}
			return kb << 10
		}
	}
	return 0
}

// cgroupMemoryLimit is the memory limit of the process's cgroup (v2 memory.max, or v1
// memory.limit_in_bytes) in bytes, 0 when there is none or it cannot be read.
func cgroupMemoryLimit() int64 {
	for _, p := range []string{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"} {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
		if err != nil || n <= 0 || n >= 1<<60 { // "max", or v1's "unlimited" page-rounded MaxInt64
			return 0
		}
		return n
	}
	return 0
}

// sizeUnits are the suffixes parseSize takes, as GOMEMLIMIT.
var sizeUnits = []struct {
	suffix string
	shift  uint
}{{"TiB", 40}, {"GiB", 30}, {"MiB", 20}, {"KiB", 10}, {"B", 0}}

// parseSize parses a byte count such as 4294967296, 4096MiB or 4GiB.
func parseSize(s string) (int64, error) {
	num, shift := strings.TrimSpace(s), uint(0)
	for _, u := range sizeUnits {
		if v, ok := strings.CutSuffix(num, u.suffix); ok {
			num, shift = strings.TrimSpace(v), u.shift
			break
		}
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n < 0 || n > math.MaxInt64>>shift {
		return 0, fmt.Errorf("invalid size %q: want bytes, or a number with a KiB, MiB, GiB or TiB suffix", s)
	}
	return n << shift, nil
}

// formatSize writes n in MiB (rounded down) from a GiB up, in bytes below.
func formatSize(n int64) string {
	if n >= 1<<30 {
		return fmt.Sprintf("%dMiB", n>>20)
	}
	return fmt.Sprintf("%dB", n)
}
