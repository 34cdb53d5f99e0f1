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
// records of what it wrote (fork_insert.go), as a block the fork executed itself. On an error before the head is set the chain is unchanged
// (orphan trie nodes or an unreferenced block may stay in the database).
func (c *Chain) WriteExecuted(block *types.Block, receipts types.Receipts, st *state.StateDB) error {
	if c.fork != nil {
		return c.writeForkExecuted(block, receipts, st)
	}
	before := c.Head()
	if block.ParentHash() != before.Hash() || block.NumberU64() != before.Number.Uint64()+1 {
		return fmt.Errorf("write block %d (%s): %w %d (%s)", block.NumberU64(), block.Hash().TerminalString(), ErrNotOnHead, before.Number.Uint64(), before.Hash().TerminalString())
	}
	start := time.Now()
	cfg := c.Config()
	root, err := st.Commit(block.NumberU64(), cfg.IsEIP158(block.Number()), cfg.IsCancun(block.Number(), block.Time()))
	if err != nil {
		return fmt.Errorf("write block %d: commit state: %w", block.NumberU64(), err)
	}
	if root != block.Root() {
		return fmt.Errorf("write block %d: state root %s, header says %s", block.NumberU64(), root, block.Root())
	}
	committed := time.Now()
	batch := c.db.NewBatch()
	rawdb.WriteBlock(batch, block)
	rawdb.WriteReceipts(batch, block.Hash(), block.NumberU64(), receipts)
	if err := batch.Write(); err != nil {
		return fmt.Errorf("write block %d: %w", block.NumberU64(), err)
	}
	// The archive keeps every state: flush this one's trie nodes, as BlockChain does.
	if err := c.bc.TrieDB().Commit(root, false); err != nil {
		return fmt.Errorf("write block %d: flush state: %w", block.NumberU64(), err)
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
	c.log.Debug("wrote executed block", "number", block.NumberU64(), "commit", committed.Sub(start), "write", written.Sub(committed), "setHead", headSet.Sub(written),
		"sync", synced.Sub(headSet), "publish", published.Sub(synced), "listeners", time.Since(published))
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

// writeForkExecuted is WriteExecuted on a fork: the state commits through the fork's write
// records (Fork.write), which the fork's reader needs to tell a value written locally from
// one still to be read from the upstream, then the block becomes the head as forkInsert
// makes it.
func (c *Chain) writeForkExecuted(block *types.Block, receipts types.Receipts, st *state.StateDB) error {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	before := c.Head()
	if block.ParentHash() != before.Hash() || block.NumberU64() != before.Number.Uint64()+1 {
		return fmt.Errorf("write block %d (%s): %w %d (%s)", block.NumberU64(), block.Hash().TerminalString(), ErrNotOnHead, before.Number.Uint64(), before.Hash().TerminalString())
	}
	cfg := c.Config()
	if err := c.fork.write(block, receipts, st, nil, c.bc.TrieDB(), cfg.IsCancun(block.Number(), block.Time()), cfg.IsEIP158(block.Number())); err != nil {
		return fmt.Errorf("write block %d: %w", block.NumberU64(), err)
	}
	if _, err := c.bc.SetCanonical(block); err != nil {
		return fmt.Errorf("write block %d: set head: %w", block.NumberU64(), err)
	}
	if err := c.db.SyncKeyValue(); err != nil {
		return fmt.Errorf("sync chain database after block %d: %w", block.NumberU64(), err)
	}
	c.publishHeads()
	c.announceDropped(before)
	c.announceWith(block, func() types.Receipts { return c.derivedReceipts(block, receipts) })
	return nil
}
