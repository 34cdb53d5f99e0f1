package kvstore

import (
	"fmt"
	"os"
	"runtime"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/cockroachdb/pebble"
)

// TestBackgroundJobsLowerTheirThreads checks that with the lower priority every flush and
// compaction of a store runs with a P added to GOMAXPROCS, on a thread backgroundNiceSteps below
// the test's (but for one on the main thread), and that the thread ends with the job, so that
// no other goroutine runs there later; that GOMAXPROCS is back where it was after the jobs;
// that the goroutine which asked for the compaction keeps its priority; and that without it the
// jobs run at the test's priority and GOMAXPROCS. (Where the test runs at nice 10 or more the
// priorities cannot differ; the Ps and the threads' ending are still checked.)
func TestBackgroundJobsLowerTheirThreads(t *testing.T) {
	runtime.LockOSThread() // the thread checked at the end is the one that asked
	defer runtime.UnlockOSThread()
	base, err := threadNice()
	if err != nil {
		t.Fatal(err)
	}
	procs := runtime.GOMAXPROCS(0)
	for _, lower := range []bool{true, false} {
		t.Run(fmt.Sprintf("lower=%v", lower), func(t *testing.T) {
			var jobs *jobProcs
			if lower {
				jobs = newJobProcs()
			}
			ran := runJobs(t, jobs)
			var flushes, compactions int
			for _, j := range ran {
				if j.err != nil {
					t.Fatalf("%s: reading its thread's priority: %v", j.kind, j.err)
				}
				mainThread := j.tid == syscall.Getpid() // parked, not ended: left as it is
				want := base
				if lower && !mainThread {
					want = min(base+backgroundNiceSteps, maxNice)
				}
				if j.nice != want {
					t.Errorf("%s ran at nice %d, want %d (the test's is %d)", j.kind, j.nice, want, base)
				}
				if lower && j.procs <= procs || !lower && j.procs != procs {
					t.Errorf("%s ran with GOMAXPROCS %d; without jobs it is %d", j.kind, j.procs, procs)
				}
				if j.kind == "flush" {
					flushes++
				} else {
					compactions++
				}
				if lower && !mainThread {
					waitThreadEnded(t, j.kind, j.tid)
				}
			}
			if flushes == 0 || compactions == 0 {
				t.Fatalf("%d flushes and %d compactions ran; the test needs both", flushes, compactions)
			}
			if got := runtime.GOMAXPROCS(0); got != procs {
				t.Errorf("GOMAXPROCS is %d after the jobs, want %d", got, procs)
			}
		})
	}
	if got, err := threadNice(); err != nil || got != base {
		t.Errorf("the test's own thread is at nice %d (%v) after the jobs, want %d", got, err, base)
	}
}

// TestCanLowerThreads checks that the probe finds that this process may set its threads'
// priorities (nothing here filters setpriority) and leaves the caller's thread as it was.
func TestCanLowerThreads(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	before, err := threadNice()
	if err != nil {
		t.Fatal(err)
	}
	if !canLowerThreads() {
		t.Fatal("canLowerThreads = false on Linux without a sandbox")
	}
	if after, err := threadNice(); err != nil || after != before {
		t.Fatalf("the caller's thread went from nice %d to %d (%v)", before, after, err)
	}
}

// job is what a flush or compaction's listener saw as it began.
type job struct {
	kind  string
	tid   int
	nice  int
	procs int // GOMAXPROCS
	err   error
}

// runJobs opens a store with jobs (nil: without the lower priority) and makes it flush and
// compact twice, recording each job as it begins, after the store's own listener.
func runJobs(t *testing.T, jobs *jobProcs) []job {
	t.Helper()
	var mu sync.Mutex
	var ran []job
	record := func(kind string) {
		nice, err := threadNice()
		mu.Lock()
		defer mu.Unlock()
		ran = append(ran, job{kind: kind, tid: syscall.Gettid(), nice: nice, procs: runtime.GOMAXPROCS(0), err: err})
	}
	recorder := pebble.EventListener{
		FlushBegin:      func(pebble.FlushInfo) { record("flush") },
		CompactionBegin: func(pebble.CompactionInfo) { record("compaction") },
	}
	opt := options(minCacheMB, minHandles, false, jobs, nil)
	recorder = pebble.TeeEventListener(*opt.EventListener, recorder)
	opt.EventListener = &recorder
	dir := t.TempDir()
	db, err := pebble.Open(dir, opt)
	opt.Cache.Unref()
	if err != nil {
		t.Fatal(err)
	}
	s := &Store{db: db, path: dir}
	for round := range 2 {
		for i := range 100 {
			mustPut(t, s, fmt.Sprintf("key-%03d", i), fmt.Sprint(round))
		}
		if err := s.Compact(nil, nil); err != nil { // a flush of the memtable, then a compaction
			t.Fatal(err)
		}
	}
	closeTest(t, s) // waits for the jobs under way
	mu.Lock()
	defer mu.Unlock()
	return ran
}

// waitThreadEnded waits until the thread tid of this process has ended. The job's goroutine
// ends soon after the job, but not before Compact returns, so this waits for it (up to a
// minute, which only a thread that never ends reaches).
func waitThreadEnded(t *testing.T, kind string, tid int) {
	t.Helper()
	path := fmt.Sprintf("/proc/self/task/%d", tid)
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(10 * time.Millisecond) {
		_, err := os.Stat(path)
		if os.IsNotExist(err) {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		if time.Now().After(deadline) {
			t.Fatalf("the thread of a %s (%d) still runs a minute after the job: other goroutines may run at its priority", kind, tid)
		}
	}
}
