package chain

import (
	"errors"
	"fmt"
	"math/big"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/consensus/misc/eip4844"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/rawdb"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/flashrpc/flashrpc/internal/chain/kvstore"
)

// ErrNotOnHead refuses WriteExecuted for a block whose parent is not the head.
var ErrNotOnHead = errors.New("block does not build on the head")

// WriteExecuted makes block the new head without executing it again: the caller executed it on
// its parent's state (a StateDB from StateAt of the head) and hands over that post-state st and
// the receipts. It is the sequencer's seal: Insert would have go-ethereum execute and validate
// the block a second time, which doubled the sequencer's work per transaction.
//
// It does what go-ethereum's BlockChain does after executing a block (writeBlockWithState,
// which op-geth does not export): it commits st (the trie nodes, the code and the snapshot
// layer) and checks that its root is the header's, writes the block and its receipts, flushes
// the state to the database (hash scheme; path keeps it in memory, recover.go, except a
// cheated block's: WriteCheated), then sets the head as BlockChain.SetCanonical would, without
// reading the receipts back (headset.go). Then, as Insert, it syncs the
// database, publishes the Heads and tells the OnHead listeners.
//
// Nothing is validated but the state root: the caller vouches that block, receipts and st
// agree (preconf builds them together, and its tests compare them with op-geth's own state
// processor). st is consumed. On a chain with an upstream (Config.OpenUpstream) the state is
// written by Upstream.Write, as a block the fork executed itself.
// On an error before the head is set the chain is unchanged (orphan trie nodes or an
// unreferenced block may stay in the database).
func (c *Chain) WriteExecuted(block *types.Block, receipts types.Receipts, st *state.StateDB) error {
	e, err := c.CommitExecuted(block, receipts, st)
	if err != nil {
		return err
	}
	return e.Write()
}

// WriteCheated is WriteExecuted for a block that executing its transactions again would not
// give: the dev chain's cheats (state changed outside any transaction, a base fee or gas limit
// the protocol would not derive, an impersonated contract's transaction; internal/preconf).
// Under the path scheme, which after kill -9 executes again the blocks whose state was still in
// memory (recover.go), its state is written to disk before it becomes the head (persist.go), so
// that recovery starts above it. Under hash it is WriteExecuted: every block's state is on disk.
func (c *Chain) WriteCheated(block *types.Block, receipts types.Receipts, st *state.StateDB) error {
	e, err := c.CommitExecuted(block, receipts, st)
	if err != nil {
		return err
	}
	e.cheated = true
	return e.Write()
}

// Executed is a block whose state CommitExecuted committed and that Write has still to write:
// WriteExecuted in two steps, so that the sequencer can open the next block on the committed
// state and let another goroutine do the rest (internal/preconf, Preconf.SealAsync).
type Executed struct {
	c        *Chain
	block    *types.Block
	receipts types.Receipts
	before   *types.Header // the head the block builds on
	start    time.Time
	commit   time.Duration
	written  bool // a fork's block: CommitExecuted wrote it whole
	cheated  bool // WriteCheated's: its state cannot be derived by executing it again

	once     sync.Once     // the store runs once (storeOnce)
	storeErr error         // the store's error, for Write
	stored   time.Duration // how long the store took, for the debug log
}

// Block returns the block to write.
func (e *Executed) Block() *types.Block { return e.block }

// CommitExecuted is WriteExecuted's first step: it checks that block builds on the head and
// commits st, checking its root against the header's. From then on the block's post-state is
// readable at its root (StateAt, BlockStateAt of block's header), in the trie database's
// memory, while nothing else has changed: the block is neither stored nor the head, nothing is
// synced or published. Write does the rest and must be called before the next CommitExecuted,
// Insert or Rewind; until then readers see the old head. st is consumed.
//
// On a chain with an upstream the state is written by Upstream.Write, which also stores the
// block: CommitExecuted then does all of WriteExecuted and Write does nothing.
func (c *Chain) CommitExecuted(block *types.Block, receipts types.Receipts, st *state.StateDB) (*Executed, error) {
	if c.up != nil {
		c.writeMu.Lock() // as insertChain: one writer of the fork's records at a time, from the head check on
		defer c.writeMu.Unlock()
	}
	before := c.Head()
	if block.ParentHash() != before.Hash() || block.NumberU64() != before.Number.Uint64()+1 {
		return nil, fmt.Errorf("write block %d (%s): %w %d (%s)", block.NumberU64(), block.Hash().TerminalString(), ErrNotOnHead, before.Number.Uint64(), before.Hash().TerminalString())
	}
	e := &Executed{c: c, block: block, receipts: receipts, before: before, start: time.Now()}
	cfg := c.Config()
	cancun, eip158 := cfg.IsCancun(block.Number(), block.Time()), cfg.IsEIP158(block.Number())
	if c.up != nil {
		if err := c.up.Write(block, receipts, st); err != nil {
			return nil, fmt.Errorf("write block %d: %w", block.NumberU64(), err)
		}
		if err := e.finish(); err != nil {
			return nil, err
		}
		e.written = true
		return e, nil
	}
	root, err := st.Commit(block.NumberU64(), eip158, cancun)
	if err != nil {
		return nil, fmt.Errorf("write block %d: commit state: %w", block.NumberU64(), err)
	}
	if root != block.Root() {
		return nil, fmt.Errorf("write block %d: state root %s, header says %s", block.NumberU64(), root, block.Root())
	}
	e.commit = time.Since(e.start)
	c.committed.Store(&committedHeader{header: block.Header(), hash: block.Hash()})
	return e, nil
}

// committedHeader is the header of a block whose state is committed and that is being written.
type committedHeader struct {
	header *types.Header
	hash   common.Hash
}

// committedContext is the chain's context knowing the header of the block being written.
type committedContext struct {
	core.ChainContext
	c *Chain
}

// GetHeader returns the header of the block being written, or asks the chain.
func (cc committedContext) GetHeader(hash common.Hash, number uint64) *types.Header {
	if h := cc.c.committed.Load(); h != nil && h.hash == hash && h.header.Number.Uint64() == number {
		return h.header
	}
	return cc.ChainContext.GetHeader(hash, number)
}

// Store stores the block, its receipts and (hash scheme) its state: the first part of Write,
// which Write does if it was not done. It may run on another goroutine as soon as the block
// is committed, before the block is published, while nothing else writes the chain; once it
// has started, Write (or Store) must return before the next write of the chain or Close. A
// block stored and then not written leaves an unreferenced block and orphan trie nodes, as a
// failed Write does.
func (e *Executed) Store() error { return e.storeOnce(false) }

// StoreInBackground is Store run as one of the process's background jobs
// (kvstore.InBackground: a thread of its own at a lower priority, with a P of its own), so
// that it takes no core or P from the sequencer's next flashblock; it flushes the state in
// parts (flushState). Write returns its error. Only where StoresInBackground: otherwise it
// would be an ordinary goroutine beside the sequencer's publication, which measured worse
// than storing after it.
func (e *Executed) StoreInBackground() {
	kvstore.InBackground(func() { _ = e.storeOnce(true) })
}

// StoresInBackground reports whether StoreInBackground runs at a lower priority with a P of its
// own: whether the process lowered its background jobs (kvstore.Lowered).
func StoresInBackground() bool { return kvstore.Lowered() }

// storeOnce runs store once, on whichever goroutine calls it first; the others wait for it.
func (e *Executed) storeOnce(inParts bool) error {
	e.once.Do(func() { e.storeErr = e.store(inParts) })
	return e.storeErr
}

// store stores the block, its receipts and its state, the state's flush in parts when inParts
// is set.
func (e *Executed) store(inParts bool) error {
	c, block := e.c, e.block
	start := time.Now()
	batch := c.db.NewBatch()
	rawdb.WriteBlock(batch, block)
	rawdb.WriteReceipts(batch, block.Hash(), block.NumberU64(), e.receipts)
	if err := batch.Write(); err != nil {
		return fmt.Errorf("write block %d: %w", block.NumberU64(), err)
	}
	// Hash (archive) flushes the block's state now, as go-ethereum does for an archive. Path
	// keeps it a memory layer, written in the background; kill -9 before then is repaired by
	// executing the block again on open (recover.go), which a cheated block does not allow:
	// its state goes to disk now, before the block is the head (persist.go).
	switch {
	case c.scheme == SchemeHash:
		var err error
		if inParts {
			err = flushState(c.bc.TrieDB(), block.Root()) // flush.go
		} else {
			err = c.bc.TrieDB().Commit(block.Root(), false)
		}
		if err != nil {
			return fmt.Errorf("write block %d: flush state: %w", block.NumberU64(), err)
		}
	case e.cheated:
		if err := c.persistState(block); err != nil {
			return fmt.Errorf("write block %d: %w", block.NumberU64(), err)
		}
	}
	e.stored = time.Since(start)
	return nil
}

// Write is WriteExecuted's second step: it stores the block (Store, unless done), sets the head
// (setExecutedHead, headset.go), syncs the database, publishes the Heads and tells the
// listeners. It runs once, on any goroutine, while no other write of the chain runs.
func (e *Executed) Write() error {
	if e.written {
		return nil
	}
	e.written = true
	c, block := e.c, e.block
	defer c.committed.Store(nil) // in the database from setExecutedHead on, or not written
	start := time.Now()
	if err := e.Store(); err != nil {
		return err
	}
	c.log.Debug("stored executed block", "number", block.NumberU64(), "commit", e.commit, "store", e.stored, "waited", time.Since(start), "queued", start.Sub(e.start)-e.commit)
	return e.finish()
}

// finish sets the head to the stored block, syncs and announces it.
func (e *Executed) finish() error {
	c, block := e.c, e.block
	start := time.Now()
	if err := c.setExecutedHead(block); err != nil {
		return fmt.Errorf("write block %d: set head: %w", block.NumberU64(), err)
	}
	headSet := time.Now()
	// Durable before anyone hears of it (Insert's reason).
	if err := c.db.SyncKeyValue(); err != nil {
		return fmt.Errorf("sync chain database after block %d: %w", block.NumberU64(), err)
	}
	synced := time.Now()
	c.publishHeads()
	c.announceDropped(e.before)
	published := time.Now()
	c.announceWith(block, func() types.Receipts { return sealedReceipts(block.Hash(), e.receipts) })
	c.log.Debug("wrote executed block", "number", block.NumberU64(), "total", time.Since(e.start), "setHead", headSet.Sub(start),
		"sync", synced.Sub(headSet), "publish", published.Sub(synced), "listeners", time.Since(published))
	return nil
}

// sealedReceipts returns copies of a written block's receipts with every derived field
// filled. It relies on preconf, the only caller of WriteExecuted and WriteCheated, deriving
// every receipt's fields when it applies the transaction and the L1 fields before it
// publishes or writes a block (Dev.SealWith's rebuilt block included): the copies get the
// sealed block's hash, the one field the seal may change, and DeriveFields, which would
// recompute every bloom and L1 fee at the boundary, is not run again. internal/sequencer's
// TestOPDifferential and TestSealWithAnnouncesL1Fields compare the copies with the receipts
// read back. The receipts given, shared with the pre-confirmations' readers, are not
// modified.
func sealedReceipts(hash common.Hash, receipts types.Receipts) types.Receipts {
	out := make(types.Receipts, len(receipts))
	copies := make([]types.Receipt, len(receipts))
	logs := 0
	for _, r := range receipts {
		logs += len(r.Logs)
	}
	logCopies := make([]types.Log, 0, logs)
	logPtrs := make([]*types.Log, 0, logs)
	for i, r := range receipts {
		copies[i] = *r
		cp := &copies[i]
		cp.BlockHash = hash
		first := len(logPtrs)
		for _, l := range r.Logs {
			logCopies = append(logCopies, *l)
			lc := &logCopies[len(logCopies)-1]
			lc.BlockHash = hash
			logPtrs = append(logPtrs, lc)
		}
		cp.Logs = logPtrs[first:len(logPtrs):len(logPtrs)]
		out[i] = cp
	}
	return out
}

// deriveReceipts fills every derived field of a stored block's receipts, in place, as reading
// them back would (rawdb.ReadReceipts: the same DeriveFields on the same block) but with the
// block in hand instead of reading and decoding its header and body again; it returns them.
// Should the derivation fail, it logs why and returns nil, as go-ethereum's reader would
// (it fails the same derivation).
func (c *Chain) deriveReceipts(block *types.Block, receipts types.Receipts) types.Receipts {
	header := block.Header()
	var blobGasPrice *big.Int
	if header.ExcessBlobGas != nil {
		blobGasPrice = eip4844.CalcBlobFee(c.Config(), header)
	}
	if err := receipts.DeriveFields(c.Config(), block.Hash(), block.NumberU64(), block.Time(), block.BaseFee(), blobGasPrice, block.Transactions()); err != nil {
		c.log.Error("deriving the receipts of a stored block", "number", block.NumberU64(), "err", err)
		return nil
	}
	return receipts
}
