package chain

import (
	"errors"
	"fmt"

	"github.com/ethereum/go-ethereum/core/types"
)

// errHeadNotSet reports a known block that go-ethereum's insert did not make the head: the
// BlockChain was stopping, which makes InsertChain return without an error.
var errHeadNotSet = errors.New("the chain is stopping")

// makeCanonical makes block the head of go-ethereum's BlockChain once the block, its receipts
// and its state are written (Executed.Write). BlockChain.SetCanonical does that and then reads
// the block's receipts back from the database, decodes them and derives their fields for its
// ChainEvent and logs feeds, which nothing in flashrpc subscribes to: about 97 ms of CPU for a
// block of 10,000 mix transactions, at the block boundary, beside the next block's first build.
//
// BlockChain.InsertChain of a block whose body and state are already there does not execute
// it: it verifies the header, finds the block known (ErrKnownBlock: one read of the block,
// whose body it decodes) and sets it as the head through the same writeHeadBlock as
// SetCanonical (the head markers and transaction lookups in one batch, after the block and
// receipts Write stored, then the in-memory head, header and snap-sync markers), and sends the
// ChainHeadEvent; not the ChainEvent nor the logs feed. go-ethereum's in-memory state ends as
// SetCanonical leaves it, and the order of the writes on disk is the same: the head marker
// never reaches the database before the block's receipts (Pebble applies batches in order,
// and Write's fsync comes after both).
//
// SetCanonical stays where InsertChain would not find the block known, or would do more than
// set the head:
//   - a chain with an upstream (fork mode): the fork writes its blocks' state itself;
//   - a header go-ethereum's engine refuses (a dev chain's cheat the checks do not allow):
//     InsertChain would record it as a bad block and refuse it;
//   - a block whose state has no snapshot layer while its parent's has: InsertChain would
//     execute it again, to fill the gap in the snapshot tree.
func (c *Chain) makeCanonical(block *types.Block) error {
	if !c.insertableAsKnown(block) {
		_, err := c.bc.SetCanonical(block)
		return err
	}
	if _, err := c.bc.InsertChain(types.Blocks{block}); err != nil {
		return err
	}
	if c.bc.CurrentBlock().Hash() != block.Hash() {
		return errHeadNotSet
	}
	return nil
}

// insertableAsKnown reports whether InsertChain would take block, stored with its state, as a
// known block and only set it as the head (makeCanonical).
func (c *Chain) insertableAsKnown(block *types.Block) bool {
	if c.up != nil {
		return false
	}
	if err := c.engine.VerifyHeader(c.bc, block.Header()); err != nil {
		c.log.Debug("head set with SetCanonical", "number", block.NumberU64(), "reason", fmt.Sprintf("header: %v", err))
		return false
	}
	// go-ethereum's skipBlock: a block is skipped (not executed) when it has a snapshot
	// layer, or when its parent has none either.
	snaps := c.bc.Snapshots()
	if snaps == nil || snaps.Snapshot(block.Root()) != nil {
		return true
	}
	parent := c.bc.GetHeader(block.ParentHash(), block.NumberU64()-1)
	if parent == nil || snaps.Snapshot(parent.Root) != nil {
		c.log.Debug("head set with SetCanonical", "number", block.NumberU64(), "reason", "no snapshot layer")
		return false
	}
	return true
}
