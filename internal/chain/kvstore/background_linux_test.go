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
	"github.com/cockroachdb/pebble/vfs"
)

// TestBackgroundJobsLowerTheirThreads checks that with the lower priority every flush and
// compaction of a store runs on a thread backgroundNiceSteps below the test's (but for one on
// the main thread), that the thread ends with the job's goroutine, so that no other goroutine
// runs there later, that GOMAXPROCS is one higher while a flush is held up and back where it
// was after the jobs, and that the goroutine which asked for them keeps its priority; and that
// without it the jobs run at the test's priority and GOMAXPROCS. (Where the test runs at nice
// 10 or more the priorities cannot differ; the Ps and the threads' ending are still checked.)
func TestBackgroundJobsLowerTheirThreads(t *testing.T) {
	procs := runtime.GOMAXPROCS(0)
	for _, lower := range []bool{true, false} {
		t.Run(fmt.Sprintf("lower=%v", lower), func(t *testing.T) {
			runtime.LockOSThread() // the thread checked at the end is the one that asked
			defer runtime.UnlockOSThread()
			base, err := threadNice()
			if err != nil {
				t.Fatal(err)
			}
			var jobs *jobProcs
			wantProcs := procs
			if lower {
				jobs = newJobProcs()
				wantProcs = procs + 1
			}
			ran := runJobs(t, jobs, func() {
				// The first flush is held as it creates its table.
				waitProcs(t, "while a flush runs", wantProcs)
			})
			waitProcs(t, "after the jobs", procs)
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
			if got, err := threadNice(); err != nil || got != base {
				t.Errorf("the test's own thread is at nice %d (%v) after the jobs, want %d", got, err, base)
			}
		})
	}
}

// TestRunLowersItsThread checks that a job run through jobProcs.run (InBackground) runs on a
// thread backgroundNiceSteps below the caller's (but on the main thread) with GOMAXPROCS one
// higher, and that the thread ends with it and GOMAXPROCS comes back; and that without the
// lower priority it runs on the caller's own thread, at its priority.
func TestRunLowersItsThread(t *testing.T) {
	runtime.LockOSThread() // the caller's thread, which a run without jobs uses
	defer runtime.UnlockOSThread()
	procs := runtime.GOMAXPROCS(0)
	base, err := threadNice()
	if err != nil {
		t.Fatal(err)
	}
	jobs := newJobProcs()
	var tid, nice, during int
	var niceErr error
	jobs.run(func() {
		tid = syscall.Gettid()
		nice, niceErr = threadNice()
		// GOMAXPROCS changes soon after the job begins (adjust): up to a minute, which only
		// a wrong count reaches.
		for deadline := time.Now().Add(time.Minute); ; time.Sleep(time.Millisecond) {
			if during = runtime.GOMAXPROCS(0); during == procs+1 || time.Now().After(deadline) {
				break
			}
		}
	})
	if niceErr != nil {
		t.Fatal(niceErr)
	}
	if during != procs+1 {
		t.Fatalf("GOMAXPROCS %d while the job ran, want %d", during, procs+1)
	}
	// On the main thread the job is not lowered, and that thread is parked, not ended
	// (lowerThread).
	mainThread := tid == syscall.Getpid()
	want := base
	if !mainThread {
		want = min(base+backgroundNiceSteps, maxNice)
	}
	if nice != want || tid == syscall.Gettid() {
		t.Fatalf("the job ran at nice %d on thread %d, want nice %d on a thread other than the caller's %d", nice, tid, want, syscall.Gettid())
	}
	waitProcs(t, "after the job", procs)
	if !mainThread {
		waitThreadEnded(t, "run job", tid)
	}

	var none *jobProcs
	none.run(func() {
		tid = syscall.Gettid()
		nice, niceErr = threadNice()
	})
	if niceErr != nil || tid != syscall.Gettid() || nice != base {
		t.Fatalf("without the lower priority the job ran at nice %d (%v) on thread %d, want %d on the caller's %d", nice, niceErr, tid, base, syscall.Gettid())
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

// job is what a flush or compaction's listener saw of its thread as it began.
type job struct {
	kind string
	tid  int
	nice int
	err  error
}

// runJobs opens a store with jobs (nil: without the lower priority) and makes it flush and
// compact twice, recording each job as it begins, after the store's own listener. The first
// flush is held as it creates its table until held has returned.
func runJobs(t *testing.T, jobs *jobProcs, held func()) []job {
	t.Helper()
	var mu sync.Mutex
	var ran []job
	record := func(kind string) {
		tid := syscall.Gettid()
		nice, err := niceOf(tid)
		mu.Lock()
		defer mu.Unlock()
		ran = append(ran, job{kind: kind, tid: tid, nice: nice, err: err})
	}
	recorder := pebble.EventListener{
		FlushBegin:      func(pebble.FlushInfo) { record("flush") },
		CompactionBegin: func(pebble.CompactionInfo) { record("compaction") },
	}
	opt := options(minCacheMB, minHandles, false, jobs, nil)
	recorder = pebble.TeeEventListener(*opt.EventListener, recorder)
	opt.EventListener = &recorder
	release := make(chan struct{})
	var releaseOnce sync.Once
	releaseAll := func() { releaseOnce.Do(func() { close(release) }) }
	opt.FS = &holdFirstTable{FS: vfs.Default, release: release}
	dir := t.TempDir()
	db, err := pebble.Open(dir, opt)
	opt.Cache.Unref()
	if err != nil {
		t.Fatal(err)
	}
	s := &Store{db: db, path: dir}
	closed := false
	t.Cleanup(func() { // on a failure too: release the flush, then close
		releaseAll()
		if !closed {
			closeTest(t, s)
		}
	})
	compacted := make(chan error, 1)
	for round := range 2 {
		for i := range 100 {
			mustPut(t, s, fmt.Sprintf("key-%03d", i), fmt.Sprint(round))
		}
		go func() { compacted <- s.Compact(nil, nil) }() // a flush of the memtable, then a compaction
		if round == 0 {
			held()
			releaseAll()
		}
		if err := <-compacted; err != nil {
			t.Fatal(err)
		}
	}
	closed = true
	closeTest(t, s) // waits for the jobs under way
	mu.Lock()
	defer mu.Unlock()
	return ran
}

// holdFirstTable is a file system whose first table (.sst) is created only once release is
// closed: the flush that creates it waits there without holding Pebble's mutex.
type holdFirstTable struct {
	vfs.FS
	release <-chan struct{}
	once    sync.Once
}

func (h *holdFirstTable) Create(name string) (vfs.File, error) {
	if len(name) > 4 && name[len(name)-4:] == ".sst" {
		h.once.Do(func() { <-h.release })
	}
	return h.FS.Create(name)
}

// waitProcs waits until GOMAXPROCS is want: the jobs' goroutine sets it soon after they
// begin and end (up to a minute, which only a wrong count reaches).
func waitProcs(t *testing.T, when string, want int) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); runtime.GOMAXPROCS(0) != want; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%s: GOMAXPROCS %d for a minute, want %d", when, runtime.GOMAXPROCS(0), want)
		}
	}
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
