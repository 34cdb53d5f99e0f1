package kvstore

import (
	"fmt"
	"runtime"

	"github.com/cockroachdb/pebble"
	"github.com/cockroachdb/pebble/bloom"
	"github.com/ethereum/go-ethereum/ethdb"
)

// The floors go-ethereum's opener puts under the cache (in MB) and the file handles.
const (
	minCacheMB = 16
	minHandles = 16
)

// memTables is the number of memtables the write half of the cache is split into, as in
// go-ethereum: several smaller ones flush more smoothly than one large one.
const memTables = 4

// maxMemTableSize is Pebble's limit on a memtable (uint32 offsets on 64-bit platforms, MaxInt
// on 32-bit ones); go-ethereum stays one byte under it, as Pebble refuses the limit itself.
const maxMemTableSize = (1<<31)<<(^uint(0)>>63) - 1

// options returns go-ethereum's Pebble options (ethdb/pebble.New at op-geth v1.101702.3) for a
// cache of cacheMB megabytes and handles open files, except MaxConcurrentCompactions, which is
// one less than runtime.NumCPU (maxCompactions), and without go-ethereum's metrics listeners;
// with jobs (not nil), flushes and compactions run at a lower priority, each with a P of its
// own (background.go), and stalls (not nil) times the write stalls (stalls.go). Every option that
// shapes what is on disk is go-ethereum's.
func options(cacheMB, handles int, readOnly bool, jobs *jobProcs, stalls *stallClock) *pebble.Options {
	cacheMB = max(cacheMB, minCacheMB)
	handles = max(handles, minHandles)
	memTableSize := cacheMB * 1024 * 1024 / 2 / memTables
	if memTableSize >= maxMemTableSize {
		memTableSize = maxMemTableSize - 1
	}
	opt := &pebble.Options{
		// One cache for reads and the memtables, as in go-ethereum.
		Cache:        pebble.NewCache(int64(cacheMB) * 1024 * 1024),
		MaxOpenFiles: handles,
		MemTableSize: uint64(memTableSize),
		// A hard limit on the memtables (counted, not sized), twice those planned, for spikes.
		MemTableStopWritesThreshold: memTables * 2,
		// The reason for this package (doc.go).
		MaxConcurrentCompactions: maxCompactions,
		Levels: []pebble.LevelOptions{
			{TargetFileSize: 2 * 1024 * 1024, FilterPolicy: bloom.FilterPolicy(10)},
			{TargetFileSize: 4 * 1024 * 1024, FilterPolicy: bloom.FilterPolicy(10)},
			{TargetFileSize: 8 * 1024 * 1024, FilterPolicy: bloom.FilterPolicy(10)},
			{TargetFileSize: 16 * 1024 * 1024, FilterPolicy: bloom.FilterPolicy(10)},
			{TargetFileSize: 32 * 1024 * 1024, FilterPolicy: bloom.FilterPolicy(10)},
			{TargetFileSize: 64 * 1024 * 1024, FilterPolicy: bloom.FilterPolicy(10)},
			{TargetFileSize: 128 * 1024 * 1024}, // no filter at the last level, as go-ethereum
		},
		ReadOnly: readOnly,
		Logger:   quietLogger{},
		// Writes do not wait for the WAL; it is synced in the background every 500 kB, and
		// by SyncKeyValue.
		WALBytesPerSync: 5 * ethdb.IdealBatchSize,
		// Two L0 sub-levels start a compaction (Pebble's default is 4), which keeps the
		// compaction debt small at the cost of more frequent compactions.
		L0CompactionThreshold: 2,
	}
	opt.EventListener = &pebble.EventListener{}
	if jobs != nil {
		jobs.listen(opt.EventListener)
	}
	if stalls != nil {
		stalls.listen(opt.EventListener)
	}
	opt.Experimental.ReadSamplingMultiplier = -1 // no seek compactions (go-ethereum PR 20130)
	// Compactions beyond the first: one per extra L0 sub-level and per 256 MB of debt, up to
	// maxCompactions, as go-ethereum sets them.
	opt.Experimental.L0CompactionConcurrency = 1
	opt.Experimental.CompactionDebtConcurrency = 1 << 28
	return opt
}

// maxCompactions is how many compactions may run at once: all the CPUs but one, and at least
// one, so that a block's flush never takes every core from the sequencer's next build
// (go-ethereum's opener allows one per CPU: both cores of a two-core node).
func maxCompactions() int { return max(1, runtime.NumCPU()-1) }

// quietLogger drops Pebble's informational and error lines, as go-ethereum's opener does
// (Pebble's default logger writes them to stderr), and panics on a fatal one instead of
// exiting the process.
type quietLogger struct{}

func (quietLogger) Infof(format string, args ...any)  {}
func (quietLogger) Errorf(format string, args ...any) {}
func (quietLogger) Fatalf(format string, args ...any) {
	panic(fmt.Errorf("pebble: fatal: "+format, args...))
}
