package main

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"
)

// A sample is one row of the CSV: each series' value at one time.
type sample struct {
	elapsed time.Duration
	names   []string // the columns, in order
	values  map[string]float64
}

func (s *sample) set(name string, v float64) {
	s.names = append(s.names, name)
	s.values[name] = v
}

// brief is the sample in one log line.
func (s *sample) brief() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s:", s.elapsed.Round(time.Second))
	for _, n := range s.names {
		if strings.HasSuffix(n, "_rss_mb") || strings.HasSuffix(n, "_lag_blocks") || n == "head" || n == "tx_sent" {
			fmt.Fprintf(&b, " %s=%.4g", n, s.values[n])
		}
	}
	return b.String()
}

// sampler reads the series of one sample.
type sampler struct {
	cl       *cluster
	ld       *load
	subs     []*subscription
	http     *http.Client
	last     map[string]int64 // counters at the previous sample
	previous time.Duration
}

func newSampler(cl *cluster, ld *load, subs []*subscription) *sampler {
	return &sampler{cl: cl, ld: ld, subs: subs, http: &http.Client{Timeout: 10 * time.Second}, last: map[string]int64{}}
}

// sample reads, per process, its resident memory and open files (/proc) and, for a flashrpc
// node, its Go heap and goroutines (its metrics); each replica's lag behind the primary; and,
// per second since the previous sample, the transactions sent and refused, the reads and the
// notifications of each subscription. A value that cannot be read is -1.
func (sm *sampler) sample(ctx context.Context, elapsed time.Duration) *sample {
	s := &sample{elapsed: elapsed, values: map[string]float64{}}
	heads := map[string]float64{}
	for _, name := range sm.cl.processes() {
		pid, err := sm.cl.pid(name)
		rss, fds := -1.0, -1.0
		if err == nil {
			rss, fds = residentMB(pid), openFiles(pid)
		}
		s.set(name+"_rss_mb", rss)
		s.set(name+"_open_files", fds)
		port := sm.cl.nodePort(name)
		if port == 0 {
			continue
		}
		m := sm.metrics(ctx, port+3)
		s.set(name+"_heap_alloc_mb", mb(m("go_memstats_heap_alloc_bytes")))
		// The live heap: the collector's goal is the heap live after the last cycle times
		// 1+GOGC/100 (below a memory limit, which the soak's nodes do not reach).
		live := -1.0
		if goal, gogc := m("go_memstats_next_gc_bytes"), m("go_gc_gogc_percent"); goal > 0 && gogc > 0 {
			live = mb(goal / (1 + gogc/100))
		}
		s.set(name+"_heap_live_mb", live)
		// What of the resident memory is the Go runtime's (what it holds from the OS and has
		// not returned) and what is not: the state caches (go-ethereum's fastcache, mmapped),
		// Pebble's block cache and memtables and other C allocations.
		goMB := -1.0
		if sys, released := m("go_memstats_sys_bytes"), m("go_memstats_heap_released_bytes"); sys > 0 && released >= 0 {
			goMB = mb(sys - released)
		}
		s.set(name+"_go_mb", goMB)
		outside := -1.0
		if goMB >= 0 && rss >= 0 {
			outside = rss - goMB
		}
		s.set(name+"_outside_go_mb", outside)
		s.set(name+"_goroutines", m("go_goroutines"))
		heads[name] = -1
		if h, err := newClient(sm.cl.url(port)).blockNumber(); err == nil {
			heads[name] = float64(h)
		}
	}
	s.set("head", heads["primary"])
	for _, name := range sm.cl.processes() {
		if h, ok := heads[name]; ok && name != "primary" {
			lag := -1.0
			if h >= 0 && heads["primary"] >= 0 {
				lag = heads["primary"] - h
			}
			s.set(name+"_lag_blocks", lag)
		}
	}
	secs := (elapsed - sm.previous).Seconds()
	sm.previous = elapsed
	rate := func(name string, total int64) {
		s.set(name, float64(total-sm.last[name])/secs)
		sm.last[name] = total
	}
	rate("tx_sent", sm.ld.sent.Load())
	rate("tx_refused", sm.ld.refused.Load())
	rate("reads_ok", sm.ld.readOK.Load())
	rate("reads_failed", sm.ld.readFailed.Load())
	var failures int64
	for _, sub := range sm.subs {
		rate("sub_"+sub.name, sub.delivered.Load())
		failures += sub.failures.Load()
	}
	rate("sub_failures", failures)
	if r := sm.ld.takeRefusals(); len(r) > 0 {
		fmt.Fprintf(os.Stderr, "soak: refusals and failures since the last sample: %v\n", r)
	}
	return s
}

// metrics scrapes a node's metrics and returns a lookup of its unlabelled series; -1 for a
// series it lacks or a scrape that failed.
func (sm *sampler) metrics(ctx context.Context, port int) func(string) float64 {
	values := map[string]float64{}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, fmt.Sprintf("http://127.0.0.1:%d/metrics", port), nil)
	if err == nil {
		var resp *http.Response
		if resp, err = sm.http.Do(req); err == nil {
			sc := bufio.NewScanner(resp.Body)
			sc.Buffer(make([]byte, 64<<10), 1<<20)
			for sc.Scan() {
				name, v, ok := strings.Cut(sc.Text(), " ")
				if !ok || strings.HasPrefix(name, "#") || strings.Contains(name, "{") {
					continue
				}
				if f, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err == nil {
					values[name] = f
				}
			}
			resp.Body.Close()
		}
	}
	return func(name string) float64 {
		if v, ok := values[name]; ok {
			return v
		}
		return -1
	}
}

// residentMB is VmRSS of /proc/PID/status in MB, -1 when it cannot be read.
func residentMB(pid int) float64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return -1
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 64)
			if err != nil {
				return -1
			}
			return kb / 1024
		}
	}
	return -1
}

// openFiles counts /proc/PID/fd, -1 when it cannot be read.
func openFiles(pid int) float64 {
	entries, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		return -1
	}
	return float64(len(entries))
}

// mb is bytes in MB, -1 for -1 (not read).
func mb(bytes float64) float64 {
	if bytes < 0 {
		return -1
	}
	return bytes / (1 << 20)
}
