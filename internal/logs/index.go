package logs

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
)

// Indexer tuning.
const (
	// flushEntries is how many posting entries a catch-up collects in memory before it
	// writes them: about 16 MB of block numbers, a few seconds of a rebuild.
	flushEntries = 1 << 21
	// progressEvery is how often a long catch-up logs a progress line.
	progressEvery = 5 * time.Second
	// progressFrom is how far behind the chain the index must be for a catch-up to log its
	// start, progress and end at info level.
	progressFrom = 10_000
	// retryAfter is how long the indexer waits after a failed update before it tries again
	// (a new block wakes it sooner).
	retryAfter = 10 * time.Second
)

// Chain is the sealed chain the index follows. *chain.Chain implements it. Its methods must be
// safe for concurrent use.
type Chain interface {
	// Head returns the newest sealed block's header.
	Head() *types.Header
	// HeaderByNumber returns the canonical header at number, or nil.
	HeaderByNumber(number uint64) *types.Header
	// CanonicalHash returns the canonical block hash at number, zero when there is none.
	CanonicalHash(number uint64) common.Hash
	// RawLogs returns a block's logs, one slice per transaction; only Address, Topics and
	// Data are read.
	RawLogs(hash common.Hash, number uint64) [][]*types.Log
	// TxHashes returns the hashes of a block's transactions, in block order; nil when the
	// body is unknown. It is called only for blocks with logs.
	TxHashes(hash common.Hash, number uint64) []common.Hash
}

// IndexConfig configures OpenIndex.
type IndexConfig struct {
	// Store holds the index; chain.Chain.LogIndexStore in the node.
	Store Store
	// Chain is the chain whose logs are indexed.
	Chain Chain
	// Logger receives build progress, rollbacks and rebuilds; nil discards them.
	Logger *slog.Logger
	// First is the first block to index: a fork's first local block (the blocks below are
	// the upstream's, which the chain does not hold and queries never ask the index for).
	// Zero indexes from block 0.
	First uint64
}

// ErrIndexClosed is returned by Sync once the index is closed.
var ErrIndexClosed = errors.New("log index closed")

// Index is the log index behind eth_getLogs: for each address and each (topic position, topic),
// the blocks that hold a log with it (docs/format/logindex.md). It follows the chain in a
// goroutine of its own: Notify wakes it after a new head, it indexes every sealed block in
// order, rolls back when the chain was rewound or reorganised (it notices by block hash), and
// builds the index from scratch, logging progress, when it is missing, of another version or
// damaged. Queries (Search) use the index for the blocks it covers and tell the caller which
// blocks above those to scan, so a query never misses a sealed block while the index catches
// up.
//
// An Index is safe for concurrent use. Only its goroutine writes to the store; queries read
// the published head (an atomic pointer) and the store.
type Index struct {
	store Store
	chain Chain
	log   *slog.Logger
	first uint64 // IndexConfig.First

	head    atomic.Pointer[meta] // what the store holds; replaced after every write
	corrupt atomic.Bool          // a reader met damaged data: rebuild, and use nothing meanwhile
	// strayRecords says that log records at or above head's next may exist, left by a crash
	// (so it starts true) or a failed update; the next update deletes them first. Only the
	// index's goroutine uses it.
	strayRecords bool

	wake   chan struct{} // capacity 1: a pending wake-up
	mu     sync.Mutex    // guards change
	change chan struct{} // closed and replaced whenever head changes

	cancel context.CancelFunc
	done   chan struct{} // closed when the goroutine has returned
}

// OpenIndex opens the index kept in cfg.Store and starts following cfg.Chain. An index that is
// missing, of another format version or damaged is deleted and built again in the background;
// queries scan meanwhile.
func OpenIndex(cfg IndexConfig) (*Index, error) {
	logger := cfg.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	ix := &Index{
		store:  cfg.Store,
		chain:  cfg.Chain,
		log:    logger,
		first:  cfg.First,
		wake:   make(chan struct{}, 1),
		change: make(chan struct{}),
		done:   make(chan struct{}),

		strayRecords: true,
	}
	m, err := ix.readMeta()
	if err != nil {
		return nil, err
	}
	ix.head.Store(&m)
	ctx, cancel := context.WithCancel(context.Background())
	ix.cancel = cancel
	go ix.run(ctx)
	ix.Notify()
	return ix, nil
}

// readMeta loads the meta record; when it is unusable it deletes the index and starts empty.
func (ix *Index) readMeta() (meta, error) {
	val, err := get(ix.store, []byte(metaKey))
	if err != nil {
		return meta{}, err
	}
	if val != nil {
		m, err := decodeMeta(val)
		if err == nil {
			return m, nil
		}
		return meta{}, ix.wipe(err.Error())
	}
	it := ix.store.NewIterator(nil, nil)
	leftovers := it.Next()
	it.Release()
	if leftovers {
		return meta{}, ix.wipe("meta record missing")
	}
	ix.log.Info("log index: none yet, building it")
	return meta{}, nil
}

// wipe deletes everything the index holds.
func (ix *Index) wipe(reason string) error {
	ix.log.Warn("log index: deleting it to build it again", "reason", reason)
	if err := ix.store.DeleteRange(nil, nil); err != nil {
		return fmt.Errorf("delete log index: %w", err)
	}
	return nil
}

// Close stops the index's goroutine and waits for it; a write under way completes first. It
// does not close the store. Close on a nil *Index does nothing.
func (ix *Index) Close() error {
	if ix == nil {
		return nil
	}
	ix.cancel()
	<-ix.done
	return nil
}

// Notify tells the index that the chain has a new head. It never blocks: call it from
// chain.Chain.OnHead.
func (ix *Index) Notify() {
	select {
	case ix.wake <- struct{}{}:
	default:
	}
}

// Sync waits until every block that was sealed when it was called is indexed, or ctx ends.
func (ix *Index) Sync(ctx context.Context) error {
	target := ix.chain.Head().Number.Uint64()
	for {
		ix.mu.Lock()
		changed := ix.change
		ix.mu.Unlock()
		if last, ok := ix.covered(); ok && last >= target {
			return nil
		}
		ix.Notify()
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-ix.done:
			return ErrIndexClosed
		case <-changed:
		}
	}
}

// Indexed returns the number of the last block the index covers; ok is false when it covers
// none, for instance while it is rebuilt or right after the chain was rewound below it.
func (ix *Index) Indexed() (last uint64, ok bool) { return ix.covered() }

// covered returns the last block the published index covers, if the block it was built on is
// still canonical (the hash check makes every block below it canonical too).
func (ix *Index) covered() (uint64, bool) {
	m := ix.head.Load()
	if m.next == 0 || ix.corrupt.Load() {
		return 0, false
	}
	if ix.chain.CanonicalHash(m.next-1) != m.head {
		ix.Notify() // rewound or reorganised: let the goroutine roll back
		return 0, false
	}
	return m.next - 1, true
}

func (ix *Index) publish(m meta) {
	ix.head.Store(&m)
	ix.mu.Lock()
	close(ix.change)
	ix.change = make(chan struct{})
	ix.mu.Unlock()
}

// reportCorrupt records that a reader met damaged data; the goroutine rebuilds the index.
func (ix *Index) reportCorrupt(err error) {
	if ix.corrupt.CompareAndSwap(false, true) {
		ix.log.Error("log index: damaged, queries scan until it is rebuilt", "err", err)
		ix.Notify()
	}
}
