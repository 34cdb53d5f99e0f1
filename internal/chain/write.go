package chain

import (
	"errors"
	"fmt"

	"github.com/ethereum/go-ethereum/core/rawdb"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"
)

// The dev chain's state cheats (anvil_setBalance and friends, internal/devapi) change state
// outside any transaction, so a block that carries them cannot be executed again from its
// transactions: it is written as the sequencer executed it (WriteExecuted). Rewind takes the
// head back for evm_revert and anvil_reset.

// ErrStateRoot refuses a block whose state root is not the root of the state it comes with.
var ErrStateRoot = errors.New("state root mismatch")

// WriteExecuted makes block, executed on the head's state into st with these receipts, the
// new head without executing it again: it commits st, writes the block and its receipts, and
// publishes and announces the new head as Insert does. The block's header must carry st's
// root. st is consumed. The block is not validated: the caller vouches for it.
func (c *Chain) WriteExecuted(block *types.Block, receipts types.Receipts, st *state.StateDB) error {
	head := c.Head()
	if block.ParentHash() != head.Hash() {
		return fmt.Errorf("write block %d: parent %s is not the head %s", block.NumberU64(), block.ParentHash().TerminalString(), head.Hash().TerminalString())
	}
	config := c.Config()
	root, err := st.Commit(block.NumberU64(), config.IsEIP158(block.Number()), config.IsCancun(block.Number(), block.Time()))
	if err != nil {
		return fmt.Errorf("write block %d: commit state: %w", block.NumberU64(), err)
	}
	if root != block.Root() {
		return fmt.Errorf("write block %d: %w: header %s, state %s", block.NumberU64(), ErrStateRoot, block.Root().TerminalString(), root.TerminalString())
	}
	if err := c.bc.TrieDB().Commit(root, false); err != nil { // archive: every state is kept
		return fmt.Errorf("write block %d: flush state: %w", block.NumberU64(), err)
	}
	batch := c.db.NewBatch()
	rawdb.WriteBlock(batch, block)
	rawdb.WriteReceipts(batch, block.Hash(), block.NumberU64(), receipts)
	if err := batch.Write(); err != nil {
		return fmt.Errorf("write block %d: %w", block.NumberU64(), err)
	}
	if _, err := c.bc.SetCanonical(block); err != nil {
		return fmt.Errorf("write block %d: set head: %w", block.NumberU64(), err)
	}
	if err := c.db.SyncKeyValue(); err != nil { // as InsertBlocks: durable before announced
		return fmt.Errorf("sync chain database after block %d: %w", block.NumberU64(), err)
	}
	c.publishHeads()
	c.announce(block)
	return nil
}

// Rewind sets the head back to block number, deleting the blocks after it; the OnReorg
// listeners receive their logs as removed. The safe and finalized markers above number are
// moved to it.
func (c *Chain) Rewind(number uint64) error {
	h := c.HeaderByNumber(number)
	if h == nil {
		return fmt.Errorf("rewind: no block %d", number)
	}
	if err := c.rewind(h); err != nil {
		return err
	}
	for _, m := range []struct {
		get func() *types.Header
		set func(*types.Header)
	}{{func() *types.Header { return c.Heads().Safe }, c.SetSafe}, {func() *types.Header { return c.Heads().Finalized }, c.SetFinalized}} {
		if cur := m.get(); cur == nil || cur.Number.Uint64() > number || c.CanonicalHash(cur.Number.Uint64()) != cur.Hash() {
			m.set(h)
		}
	}
	return nil
}
