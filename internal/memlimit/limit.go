package memlimit

import (
	"bufio"
	"io/fs"
	"os"
	"path"
	"slices"
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

// The memory limit of the process's cgroup, as the kernel applies it: the lowest limit of the
// cgroup and its ancestors. The cgroup is the one proc/self/cgroup names (cgroup v2's "0::"
// line, cgroup v1's memory controller's), under the hierarchy's usual mount: a systemd
// service's MemoryMax= or a container without a cgroup namespace sets the limit on a cgroup
// below the mount's root, which a container with its own namespace sees as the root itself.
var (
	cgroupV2 = cgroupHierarchy{mount: "sys/fs/cgroup", file: "memory.max"}
	cgroupV1 = cgroupHierarchy{mount: "sys/fs/cgroup/memory", file: "memory.limit_in_bytes"}
)

// cgroupHierarchy is where a cgroup version's memory limits are read.
type cgroupHierarchy struct {
	mount string // the hierarchy's mount point, under root
	file  string // the limit's file in each cgroup's directory
}

// cgroupLimit is the memory limit of the process's cgroup under root in bytes, 0 when there is
// none or it cannot be read.
func cgroupLimit(root fs.FS) int64 {
	v2, v1 := "/", "/" // without proc/self/cgroup, the mounts' roots
	if b, err := fs.ReadFile(root, "proc/self/cgroup"); err == nil {
		v2, v1 = cgroupPaths(string(b))
	}
	if n, found := cgroupV2.lowest(root, v2); found {
		return n
	}
	n, _ := cgroupV1.lowest(root, v1)
	return n
}

// cgroupPaths returns the process's cgroup in the v2 hierarchy and in v1's memory controller
// from the text of /proc/self/cgroup (lines of ID:controllers:path); "/" for one not listed.
func cgroupPaths(text string) (v2, v1 string) {
	v2, v1 = "/", "/"
	for line := range strings.Lines(text) {
		parts := strings.SplitN(strings.TrimSpace(line), ":", 3)
		if len(parts) != 3 {
			continue
		}
		switch {
		case parts[0] == "0" && parts[1] == "":
			v2 = parts[2]
		case slices.Contains(strings.Split(parts[1], ","), "memory"):
			v1 = parts[2]
		}
	}
	return v2, v1
}

// lowest returns the lowest memory limit of cgroup (a path in the hierarchy) and its
// ancestors in bytes, 0 when none has one; found is false when no limit file was read.
func (h cgroupHierarchy) lowest(root fs.FS, cgroup string) (limit int64, found bool) {
	dir := path.Join(h.mount, cgroup)
	if !strings.HasPrefix(dir+"/", h.mount+"/") { // a path out of the hierarchy (".."): its root
		dir = h.mount
	}
	for {
		if b, err := fs.ReadFile(root, path.Join(dir, h.file)); err == nil {
			found = true
			n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
			// v2's "max", or v1's "unlimited", a page-rounded MaxInt64: no limit here.
			if err == nil && n > 0 && n < 1<<60 && (limit == 0 || n < limit) {
				limit = n
			}
		}
		if dir == h.mount {
			return limit, found
		}
		dir = path.Dir(dir)
	}
}
