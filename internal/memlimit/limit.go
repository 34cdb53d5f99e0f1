package memlimit

import (
	"bufio"
	"io/fs"
	"os"
	"strconv"
	"strings"
)

// Share is the part of the machine's memory, or of the cgroup's limit when it is lower, that
// the Go runtime keeps its memory under by default. The collector runs as often as it takes
// to stay below it, so a burst of large inputs (2,000 refused transactions of 120 kB) costs
// CPU instead of raising the process's peak memory without bound; it is a soft limit (live
// data above it is kept, the runtime does not fail), and memory outside the Go heap
// (Pebble's caches) is not counted.
const Share = 0.8

// Default is Share of the lower of the machine's memory and the cgroup's memory limit; 0 when
// neither can be read.
func Default() int64 { return defaultIn(rootFS()) }

// rootFS is the file system the limits are read from.
func rootFS() fs.FS { return os.DirFS("/") }

// defaultIn is Default with the files read from root.
func defaultIn(root fs.FS) int64 {
	total := machineMemory(root)
	if c := cgroupLimit(root); c > 0 && (total == 0 || c < total) {
		total = c
	}
	return int64(float64(total) * Share)
}

// machineMemory is MemTotal of proc/meminfo under root in bytes, 0 when it cannot be read.
func machineMemory(root fs.FS) int64 {
	f, err := root.Open("proc/meminfo")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "MemTotal:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err != nil || kb <= 0 {
				return 0
			}
			return kb << 10
		}
	}
	return 0
}

// cgroupFiles are where the memory limit of the process's cgroup is read, as a container
// mounts it: cgroup v2's memory.max, then cgroup v1's memory.limit_in_bytes.
var cgroupFiles = []string{"sys/fs/cgroup/memory.max", "sys/fs/cgroup/memory/memory.limit_in_bytes"}

// cgroupLimit is the memory limit of the process's cgroup under root in bytes, 0 when there is
// none or it cannot be read.
func cgroupLimit(root fs.FS) int64 {
	for _, p := range cgroupFiles {
		b, err := fs.ReadFile(root, p)
		if err != nil {
			continue
		}
		n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
		if err != nil || n <= 0 || n >= 1<<60 { // v2's "max", or v1's "unlimited", a page-rounded MaxInt64
			return 0
		}
		return n
	}
	return 0
}
