package kvstore

import (
	"runtime"
	"sync/atomic"

	"github.com/cockroachdb/pebble"
)

// Pebble flushes memtables and compacts tables on goroutines of its own, one per job
// (DB.maybeScheduleFlush and DB.maybeScheduleCompaction start them with go), and calls the
// event listener's FlushBegin and CompactionBegin on that goroutine as the job starts, and
// FlushEnd and CompactionEnd as it ends. On a node with two cores such a job, started by the
// write of block N, competes with the sequencer's first flashblock of block N+1: the
// flashblock's state root waited 20-45 ms for op-geth's helper goroutines while the compaction
// ran on the other core (docs/benchmarks.md, "The block boundary under load", sessions 14 and
// 15).
//
// With the lower priority, each job's goroutine locks itself to its OS thread and lowers that
// thread's priority (lowerThread). The kernel then gives the cores to the node's other threads
// first, and the job runs on what they leave. It is not starved: when the node is busy it gets
// about a tenth of a contended core, and when compactions fall behind, Pebble stops the writes
// (its memtable and L0 limits) until they catch up. The goroutine ends with its job and, still
// locked, takes its thread with it, so no other goroutine ever runs at the lower priority.
//
// A goroutine keeps its P while it runs, even while the kernel holds its thread back, so a job
// also adds a P to GOMAXPROCS for about as long as it runs (jobProcs): the node's own goroutines
// keep as many Ps as before. Without it, a compaction held one of a two-core node's two Ps at
// the lower priority and the first flashblocks were later than with no lower priority at all
// (measured). A P added for good instead would cost the node's requests when no job runs: two
// Ps on one core raised the read benchmarks' p99 from under 1 ms to 13-28 ms (measured).
//
// The cost: each change of GOMAXPROCS stops the world (from a goroutine of its own, jobProcs);
// Pebble calls FlushBegin and CompactionBegin with its mutex held and the job's goroutine keeps
// it until the job lets it go, and a job's goroutine also takes it once more after its end
// event (to delete obsolete files and schedule the next job), so a write that needs the mutex
// then may wait at the job's lower priority; and a garbage collection's stop-the-world waits
// for the job's thread to reach a safe point. Measured on two cores, the block boundary gained
// more than these cost (docs/benchmarks.md, session 15).

// backgroundNiceSteps is how far below the process's priority the jobs' threads run: nice 10
// for a node at nice 0, a weight of about a tenth of the node's threads' under Linux's
// scheduler.
const backgroundNiceSteps = 10

// maxNice is the lowest priority Linux has.
const maxNice = 19

// background holds the process's jobs once LowerBackgroundPriority has been called: the
// process's choice, like GOMAXPROCS, and one count of running jobs for all its stores.
var background atomic.Pointer[jobProcs]

// LowerBackgroundPriority makes the stores opened from now on in this process run their flushes
// and compactions on threads backgroundNiceSteps below the process's priority, each with a P of
// its own added to GOMAXPROCS while it runs, and reports whether it can (Linux, where a thread
// has a priority of its own, unless a sandbox filters setpriority; otherwise it does nothing
// and returns false). GOMAXPROCS as it is now is the base the jobs' Ps are added to; the caller
// must not change it later.
func LowerBackgroundPriority() bool {
	if !canLowerThreads() {
		return false
	}
	if background.Load() == nil { // called once, from main: a second call keeps the first count
		background.Store(newJobProcs())
	}
	return true
}

// jobProcs counts the running jobs and keeps GOMAXPROCS at base plus their number. The jobs
// only count and signal: runtime.GOMAXPROCS stops the world and first waits for a garbage
// collection's mark phase to end, and Pebble calls the jobs' begin and end with its mutex held,
// so a job that changed GOMAXPROCS itself would hold every write for as long as that takes, at
// its lower priority. A goroutine of the process's own (adjust) changes it instead, with no
// lock held; a job's P comes as soon as it can.
type jobProcs struct {
	base    int          // GOMAXPROCS without jobs
	running atomic.Int64 // jobs begun and not ended
	changed chan struct{}
}

// newJobProcs returns the jobs' count over today's GOMAXPROCS and starts its adjust goroutine,
// which lives as long as the process.
func newJobProcs() *jobProcs {
	j := &jobProcs{base: runtime.GOMAXPROCS(0), changed: make(chan struct{}, 1)}
	go j.adjust()
	return j
}

// adjust sets GOMAXPROCS to base plus the running jobs whenever their number changes.
func (j *jobProcs) adjust() {
	procs := j.base
	for range j.changed {
		if want := j.base + int(j.running.Load()); want != procs {
			runtime.GOMAXPROCS(want)
			procs = want
		}
	}
}

// signal wakes adjust, or leaves it to see the new count on the wake-up already pending.
func (j *jobProcs) signal() {
	select {
	case j.changed <- struct{}{}:
	default:
	}
}

// begin is called on a job's goroutine as it starts: a P asked for, then its thread lowered.
func (j *jobProcs) begin() {
	j.running.Add(1)
	j.signal()
	lowerThread()
}

// end is called on a job's goroutine as it ends: its P given back. The goroutine returns
// soon after, and its thread with it.
func (j *jobProcs) end() {
	j.running.Add(-1)
	j.signal()
}

// listen sets l's flush and compaction events to run each job as a lowered job of j.
func (j *jobProcs) listen(l *pebble.EventListener) {
	l.FlushBegin = func(pebble.FlushInfo) { j.begin() }
	l.FlushEnd = func(pebble.FlushInfo) { j.end() }
	l.CompactionBegin = func(pebble.CompactionInfo) { j.begin() }
	l.CompactionEnd = func(pebble.CompactionInfo) { j.end() }
}

// InBackground runs f as one of the process's background jobs when LowerBackgroundPriority
// was called (jobProcs.run), and on the calling goroutine otherwise. It returns when f does.
// The chain stores a sealed block this way while the sequencer waits to publish it.
func InBackground(f func()) { background.Load().run(f) }

// Lowered reports whether LowerBackgroundPriority was called: whether InBackground runs its
// function at a lower priority with a P of its own.
func Lowered() bool { return background.Load() != nil }

// run runs f as a job of j: on a goroutine, and a thread, of its own at the jobs' lower
// priority (except on the main thread: lowerThread), with a P asked for while it runs, as a
// flush is run. It returns when f does. On a nil j it runs f on the calling goroutine.
func (j *jobProcs) run(f func()) {
	if j == nil {
		f()
		return
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		j.begin()
		defer j.end() // the P is given back soon after (adjust)
		f()
	}() // ends locked to its lowered thread, which then ends with it
	<-done
}
