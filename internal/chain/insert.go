package chain

import (
	"fmt"

	"github.com/ethereum/go-ethereum/core/rawdb"
	"github.com/ethereum/go-ethereum/core/types"
)

// HeadEvent describes a new sealed head. Receipts have their derived fields filled. The slices
// are shared: listeners must not modify them.
type HeadEvent struct {
	Block    *types.Block
	Receipts types.Receipts
}

// OnHead registers fn to be called, on the inserting goroutine, after every block that Insert
// makes the new head, once the Heads naming it are published (heads.go). fn must return
// quickly and must not call Insert.
func (c *Chain) OnHead(fn func(HeadEvent)) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.listeners = append(c.listeners, fn)
}

// Insert executes and validates block on top of its parent and makes it the new head.
// go-ethereum re-executes the block (there is no public way to write an already-executed
// block), which also proves that what the sequencer built is valid.
func (c *Chain) Insert(block *types.Block) error {
	return c.InsertBlocks(types.Blocks{block})
}

// InsertBlocks inserts a run of consecutive blocks, as Insert does for one. On an error the
// blocks before the failing one stay inserted; the error names the failing block.
func (c *Chain) InsertBlocks(blocks types.Blocks) error {
	if len(blocks) == 0 {
		return nil
	}
	before := c.Head()
	n, err := c.insertChain(blocks)
	if n > 0 {
		// Pebble writes without fsync and buffers its log in memory for a moment; a kill right
		// after sealing would lose the block. One synced log write makes everything before it
		// durable, against process crashes and power loss alike.
		if serr := c.db.SyncKeyValue(); serr != nil {
			return fmt.Errorf("sync chain database after block %d: %w", blocks[n-1].NumberU64(), serr)
		}
	}
	if n > 0 {
		c.publishHeads()          // heads.go: readers see the new head from here on
		c.announceDropped(before) // reorg.go: a side chain took over
	}
	for _, b := range blocks[:n] {
		c.announce(b)
	}
	if err != nil {
		b := blocks[n]
		return fmt.Errorf("insert block %d (%s): %w", b.NumberU64(), b.Hash().TerminalString(), err)
	}
	return nil
}

// insertChain inserts blocks into the BlockChain, or on a chain with an upstream one by one
// through Upstream.Insert; it returns how many were inserted.
func (c *Chain) insertChain(blocks types.Blocks) (int, error) {
	if c.up == nil {
		return c.bc.InsertChain(blocks)
	}
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	for i, b := range blocks {
		if err := c.up.Insert(b); err != nil {
			return i, err
		}
	}
	return len(blocks), nil
}

// announce tells the OnHead listeners about an inserted block. Its receipts are read raw and
// derived with the block in hand: the insert already decoded and hashed its transactions, and
// reading the body back for them (go-ethereum's GetReceiptsByHash) cost a catching-up replica
// more than half of each block's announcement.
func (c *Chain) announce(b *types.Block) {
	c.announceWith(b, func() types.Receipts {
		raw := rawdb.ReadRawReceipts(c.db, b.Hash(), b.NumberU64())
		if raw == nil {
			return c.bc.GetReceiptsByHash(b.Hash()) // as before; nil when they are not stored
		}
		return c.deriveReceipts(b, raw)
	})
}

// announceWith tells the OnHead listeners about b, with the receipts receipts returns (called
// only when there are listeners).
func (c *Chain) announceWith(b *types.Block, receipts func() types.Receipts) {
	c.mu.Lock()
	listeners := c.listeners
	c.mu.Unlock()
	if len(listeners) == 0 {
		return
	}
	ev := HeadEvent{Block: b, Receipts: receipts()}
	for _, fn := range listeners {
		fn(ev)
	}
}

// SetSafe marks the block with this header safe and publishes the new Heads.
func (c *Chain) SetSafe(h *types.Header) {
	c.bc.SetSafe(h)
	c.publishHeads()
}

// SetFinalized marks the block with this header finalized and publishes the new Heads.
func (c *Chain) SetFinalized(h *types.Header) {
	c.bc.SetFinalized(h)
	c.publishHeads()
}
