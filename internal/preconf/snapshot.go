package preconf

import (
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"
)

// Snapshot is one published pre-confirmation of the block in progress. Its exported fields are
// immutable: readers must not modify them or the slices they hold.
type Snapshot struct {
	// Index is the pre-confirmation index within the block: 0 opens the block.
	Index int
	// Block is the partial block: the header as if the block were sealed now and every
	// transaction pre-confirmed so far. Block.Hash() is the partial block hash.
	Block *types.Block
	// Parent is the sealed block the block in progress builds on.
	Parent *types.Header
	// Receipts of Block's transactions, derived fields filled; BlockHash is the zero hash, as
	// pre-confirmed receipts are served (decisions.md).
	Receipts types.Receipts
	// Senders[i] sent Block.Transactions()[i].
	Senders []common.Address
	// FirstNew is the position of the first transaction this pre-confirmation added; the
	// transactions from FirstNew on are this pre-confirmation's own.
	FirstNew int
	// Published is when the snapshot was published, just before readers could see it: the
	// moment latency measurements start from (docs/benchmarks.md). A batch published on a
	// schedule (PublishOptions.PublishAfter) is published after its wait, not when it was built.
	Published time.Time
	// Assembly is how long assembling took: the partial block (roots, hash) and the copy of
	// its state (the flashblock apply time of internal/metrics), not the wait before
	// publishing. Roots is its first part, writing the state's changes into its tries and
	// hashing them, and Commit its last for a publication that seals the block
	// (PublishOptions.Seal): waiting for the parent's chain write if still in flight, then the
	// state commit (none for a block sealed after its publication); zero for other
	// publications.
	Assembly, Roots, Commit time.Duration

	txIndex map[common.Hash]int // transaction hash → position

	stateMu sync.Mutex // guards state: a StateDB caches what it reads, so even reads write
	// state is the state after the last pre-confirmed transaction: a copy of the writer's,
	// never committed, or for a publication that sealed its block the committed state opened
	// at the block's root (publishLocked).
	state *state.StateDB
}

// Number returns the number of the block in progress.
func (s *Snapshot) Number() uint64 { return s.Block.NumberU64() }

// Header returns the partial block's header. Callers must not modify it.
func (s *Snapshot) Header() *types.Header { return s.Block.Header() }

// TxIndex returns the position of a pre-confirmed transaction, or false.
func (s *Snapshot) TxIndex(hash common.Hash) (int, bool) {
	i, ok := s.txIndex[hash]
	return i, ok
}

// Logs returns every log pre-confirmed so far, in block order. The slice is new; the logs are
// shared and must not be modified.
func (s *Snapshot) Logs() []*types.Log {
	var logs []*types.Log
	for _, r := range s.Receipts {
		logs = append(logs, r.Logs...)
	}
	return logs
}

// ReadState runs fn with the pre-confirmed state. fn must only read, and must not keep the
// StateDB; calls are serialised, so fn should be quick.
func (s *Snapshot) ReadState(fn func(*state.StateDB)) {
	s.stateMu.Lock()
	defer s.stateMu.Unlock()
	fn(s.state)
}

// CopyState returns a private copy of the pre-confirmed state that the caller may modify: for
// work that computes state roots (eth_simulateV1) or on a chain whose reads may fail (a
// fork's); the other calls take ExecState.
func (s *Snapshot) CopyState() *state.StateDB {
	s.stateMu.Lock()
	defer s.stateMu.Unlock()
	return s.state.Copy()
}
