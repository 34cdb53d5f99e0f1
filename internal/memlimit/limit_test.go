package memlimit

import (
	"testing"
	"testing/fstest"
)

// TestDefault reads machine and cgroup memory from made-up files: the lower of the two
// counts, a cgroup without a limit does not, and nothing readable gives no limit.
func TestDefault(t *testing.T) {
	meminfo := &fstest.MapFile{Data: []byte("MemFree:  1000 kB\nMemTotal:       16384000 kB\nSwap: 0 kB\n")}
	machine := int64(16384000) << 10
	for _, tc := range []struct {
		name string
		fs   fstest.MapFS
		want int64 // before Share
	}{
		{"machine only", fstest.MapFS{"proc/meminfo": meminfo}, machine},
		{"cgroup v2 lower", fstest.MapFS{"proc/meminfo": meminfo, "sys/fs/cgroup/memory.max": {Data: []byte("2147483648\n")}}, 2 << 30},
		{"cgroup v2 max", fstest.MapFS{"proc/meminfo": meminfo, "sys/fs/cgroup/memory.max": {Data: []byte("max\n")}}, machine},
		{"cgroup v2 higher", fstest.MapFS{"proc/meminfo": meminfo, "sys/fs/cgroup/memory.max": {Data: []byte("68719476736\n")}}, machine},
		{"cgroup v1 lower", fstest.MapFS{"proc/meminfo": meminfo, "sys/fs/cgroup/memory/memory.limit_in_bytes": {Data: []byte("1073741824\n")}}, 1 << 30},
		{"cgroup v1 unlimited", fstest.MapFS{"proc/meminfo": meminfo, "sys/fs/cgroup/memory/memory.limit_in_bytes": {Data: []byte("9223372036854771712\n")}}, machine},
		{"cgroup without meminfo", fstest.MapFS{"sys/fs/cgroup/memory.max": {Data: []byte("1073741824")}}, 1 << 30},
		{"nothing readable", fstest.MapFS{}, 0},
		{"garbled meminfo", fstest.MapFS{"proc/meminfo": {Data: []byte("MemTotal: lots kB\n")}}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got, want := defaultIn(tc.fs), int64(float64(tc.want)*Share); got != want {
				t.Errorf("default limit %d, want %d", got, want)
			}
		})
	}
}

// TestDefaultHere checks the limit of the machine the test runs on: positive and below its
// memory when /proc/meminfo is readable.
func TestDefaultHere(t *testing.T) {
	d := Default()
	if m := machineMemory(rootFS()); m > 0 && (d <= 0 || d > m) {
		t.Errorf("default limit %d, machine memory %d", d, m)
	}
}
