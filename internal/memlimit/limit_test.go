package memlimit

import (
	"testing"
	"testing/fstest"
)

// TestDefault reads machine and cgroup memory from made-up files: the lower of the two
// counts, a cgroup without a limit does not, and nothing readable gives no limit. The cgroup
// is the process's (proc/self/cgroup), or the mount's root without that file, and the lowest
// limit of it and its ancestors applies.
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
		{"systemd service v2", fstest.MapFS{
			"proc/meminfo":     meminfo,
			"proc/self/cgroup": {Data: []byte("0::/system.slice/flashrpc.service\n")},
			"sys/fs/cgroup/system.slice/flashrpc.service/memory.max": {Data: []byte("3221225472\n")},
			"sys/fs/cgroup/system.slice/memory.max":                  {Data: []byte("max\n")},
		}, 3 << 30},
		{"lower limit on an ancestor v2", fstest.MapFS{
			"proc/meminfo":                        meminfo,
			"proc/self/cgroup":                    {Data: []byte("0::/docker/abc\n")},
			"sys/fs/cgroup/docker/abc/memory.max": {Data: []byte("max\n")},
			"sys/fs/cgroup/docker/memory.max":     {Data: []byte("1073741824\n")},
		}, 1 << 30},
		{"container namespace v2", fstest.MapFS{
			"proc/meminfo":             meminfo,
			"proc/self/cgroup":         {Data: []byte("0::/\n")},
			"sys/fs/cgroup/memory.max": {Data: []byte("2147483648\n")},
		}, 2 << 30},
		{"path out of the hierarchy", fstest.MapFS{
			"proc/meminfo":             meminfo,
			"proc/self/cgroup":         {Data: []byte("0::/../..\n")},
			"sys/fs/cgroup/memory.max": {Data: []byte("2147483648\n")},
		}, 2 << 30},
		{"docker without namespace v1", fstest.MapFS{
			"proc/meminfo":     meminfo,
			"proc/self/cgroup": {Data: []byte("12:cpu,cpuacct:/docker/abc\n11:memory:/docker/abc\n0::/\n")},
			"sys/fs/cgroup/memory/docker/abc/memory.limit_in_bytes": {Data: []byte("1073741824\n")},
			"sys/fs/cgroup/memory/memory.limit_in_bytes":            {Data: []byte("9223372036854771712\n")},
		}, 1 << 30},
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
