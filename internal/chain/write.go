package chain

import (
	"errors"
	"fmt"
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum/consensus/misc/eip4844"
	"github.com/ethereum/go-ethereum/core/rawdb"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"
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
// the state to the database (archive), then sets the head with BlockChain.SetCanonical, which
// finds the state present and does not execute anything. Then, as Insert, it syncs the
// database, publishes the Heads and tells the OnHead listeners.
//
// Nothing is validated but the state root: the caller vouches that block, receipts and st
// agree (preconf builds them together, and its tests compare them with op-geth's own state
// processor). st is consumed. On a fork (Config.Fork) the state is written with the fork's
// records of what it wrote (Fork.write, fork_insert.go), as a block the fork executed itself.
// On an error before the head is set the chain is unchanged (orphan trie nodes or an
// unreferenced block may stay in the database).
func (c *Chain) WriteExecuted(block *types.Block, receipts types.Receipts, st *state.StateDB) error {
	if c.fork != nil {
		c.writeMu.Lock() // as forkInsert: one writer of the fork's records at a time
		defer c.writeMu.Unlock()
	}
	before := c.Head()
	if block.ParentHash() != before.Hash() || block.NumberU64() != before.Number.Uint64()+1 {
		return fmt.Errorf("write block %d (%s): %w %d (%s)", block.NumberU64(), block.Hash().TerminalString(), ErrNotOnHead, before.Number.Uint64(), before.Hash().TerminalString())
	}
	start := time.Now()
	cfg := c.Config()
	cancun, eip158 := cfg.IsCancun(block.Number(), block.Time()), cfg.IsEIP158(block.Number())
	var err error
	if c.fork != nil {
		err = c.fork.write(block, receipts, st, nil, c.bc.TrieDB(), cancun, eip158)
	} else {
		err = c.storeExecuted(block, receipts, st, cancun, eip158)
	}
	if err != nil {
		return fmt.Errorf("write block %d: %w", block.NumberU64(), err)
	}
	written := time.Now()
	if _, err := c.bc.SetCanonical(block); err != nil {
		return fmt.Errorf("write block %d: set head: %w", block.NumberU64(), err)
	}
	headSet := time.Now()
	// Durable before anyone hears of it (Insert's reason).
	if err := c.db.SyncKeyValue(); err != nil {
		return fmt.Errorf("sync chain database after block %d: %w", block.NumberU64(), err)
	}
	synced := time.Now()
	c.publishHeads()
	c.announceDropped(before)
	published := time.Now()
	c.announceWith(block, func() types.Receipts { return c.derivedReceipts(block, receipts) })
	c.log.Debug("wrote executed block", "number", block.NumberU64(), "store", written.Sub(start), "setHead", headSet.Sub(written),
		"sync", synced.Sub(headSet), "publish", published.Sub(synced), "listeners", time.Since(published))
	return nil
}

// storeExecuted commits st, checks its root against the header's, writes the block and its
// receipts and flushes the state's trie nodes (the archive keeps every state), as BlockChain
// does after executing a block.
func (c *Chain) storeExecuted(block *types.Block, receipts types.Receipts, st *state.StateDB, cancun, eip158 bool) error {
	root, err := st.Commit(block.NumberU64(), eip158, cancun)
	if err != nil {
		return fmt.Errorf("commit state: %w", err)
	}
	if root != block.Root() {
		return fmt.Errorf("state root %s, header says %s", root, block.Root())
	}
	batch := c.db.NewBatch()
	rawdb.WriteBlock(batch, block)
	rawdb.WriteReceipts(batch, block.Hash(), block.NumberU64(), receipts)
	if err := batch.Write(); err != nil {
		return err
	}
	if err := c.bc.TrieDB().Commit(root, false); err != nil {
		return fmt.Errorf("flush state: %w", err)
	}
	return nil
}

// derivedReceipts returns copies of a written block's receipts with every derived field
// filled, as reading them back would (rawdb.ReadReceipts: the same DeriveFields on the same
// block) but without reading and decoding the block and its receipts again. The receipts
// given, shared with the pre-confirmations' readers, are not modified.
func (c *Chain) derivedReceipts(block *types.Block, receipts types.Receipts) types.Receipts {
	out := make(types.Receipts, len(receipts))
	for i, r := range receipts {
		cp := *r
		cp.Logs = make([]*types.Log, len(r.Logs))
		for j, l := range r.Logs {
			lc := *l
			cp.Logs[j] = &lc
		}
		out[i] = &cp
	}
	header := block.Header()
	var blobGasPrice *big.Int
	if header.ExcessBlobGas != nil {
		blobGasPrice = eip4844.CalcBlobFee(c.Config(), header)
	}
	if err := out.DeriveFields(c.Config(), block.Hash(), block.NumberU64(), block.Time(), block.BaseFee(), blobGasPrice, block.Transactions()); err != nil {
		c.log.Error("deriving the receipts of a written block; reading them back", "number", block.NumberU64(), "err", err)
		return c.bc.GetReceiptsByHash(block.Hash())
	}
	return out
}
