package chain

import (
	"fmt"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/rawdb"
	"github.com/ethereum/go-ethereum/core/types"
)

// Persisting a cheated block's state under the path scheme (WriteCheated).
//
// After kill -9 the path scheme's disk state is older than the head, and Open executes the
// blocks above it again (recover.go). A dev chain's cheated block cannot be executed again, so
// its state must be on disk before it is the head: recovery then starts above it. go-ethereum's
// pathdb does this with Commit(root), which merges the memory layers up to root into the disk
// layer one at a time, oldest first, and writes the disk layer after each (a Pebble batch of
// the layer's changes, after an fsync of the state history's files): one write per block since
// the last one, 128 at most. The merge holds pathdb's layer lock, so readers of the state wait
// for it. The last write runs on pathdb's own goroutine, which Commit does not wait for and
// pathdb gives no way to wait for, so persistState waits until the database records the
// block's state as the persisted one (the write's last key).
//
// The merge leaves one layer, the block's state: the states of the blocks below it are read
// through the state history from then on (history.go), as those below the memory layers always
// are, and have no proof. The shared readers of those states read through the memory layers,
// which are gone: they are dropped, and the StateDBs still holding one (a request in flight, a
// cached head state) have it open the root's state again on its next miss (statereader.go),
// from the disk layer or the state history, whose error is then the read's.
//
// Recording the cheats with the block and applying them again in recovery was the other way.
// It writes less, but a cheat is a Go function, and the cheated blocks that are not state
// changes (a base fee or gas limit the protocol would not derive, an impersonated contract's
// transaction) do not pass go-ethereum's validation when inserted again: recovery would need
// its own block writer and a record format of flashrpc's own, for what a flush does.

// persistWait bounds how long persistState waits for pathdb's write of the buffer: it writes at
// most Config's write buffer (pathWriteBufferMB) and syncs the state history, in well under a
// second on any disk; a minute means the write failed (pathdb keeps the error to itself).
const persistWait = time.Minute

// persistPoll is how often persistState looks for the write's end: a block's worth of state is
// written in a few milliseconds, most of them an fsync.
const persistPoll = 100 * time.Microsecond

// persistState writes the path scheme's state up to block's to disk and returns once it is
// there (Pebble's log, synced with the block by Write). The caller has committed the block's
// state (CommitExecuted) and is the chain's only writer.
func (c *Chain) persistState(block *types.Block) error {
	start := time.Now()
	root := block.Root()
	if err := c.bc.TrieDB().Commit(root, false); err != nil {
		if c.statePersisted(root) {
			return nil // a block that changed no state, on a parent already on disk
		}
		return fmt.Errorf("persist state: %w", err)
	}
	c.readers.Reset() // the merged layers' readers fail from now on
	c.stateEpoch.Add(1)
	id := rawdb.ReadStateID(c.db, root)
	if id == nil {
		return fmt.Errorf("persist state: no state id recorded for root %s", root)
	}
	deadline := start.Add(persistWait)
	for rawdb.ReadPersistentStateID(c.db) < *id {
		if time.Now().After(deadline) {
			return fmt.Errorf("persist state: the state of root %s (id %d) was not written within %s (disk full?)", root, *id, persistWait)
		}
		time.Sleep(persistPoll)
	}
	c.log.Debug("persisted a cheated block's state", "number", block.NumberU64(), "id", *id, "elapsed", time.Since(start))
	return nil
}

// StateEpoch changes whenever states read before may no longer be readable through what was
// read: a cheated block's write under the path scheme drops the memory layers that the
// readers of older states read through. The shared readers open their state again when that
// happens; a cache of something prepared from a state that reads through other means (a
// simulation's base, whose tries were opened on the layers) drops its entries when the epoch
// moves, so that it never hands out a reader of a dropped layer.
func (c *Chain) StateEpoch() uint64 { return c.stateEpoch.Load() }

// statePersisted reports whether pathdb has written the state at root, or a later one, to disk.
func (c *Chain) statePersisted(root common.Hash) bool {
	id := rawdb.ReadStateID(c.db, root)
	return id != nil && *id <= rawdb.ReadPersistentStateID(c.db)
}
