package chain

import (
	"errors"
	"fmt"
	_ "unsafe" // go:linkname

	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/types"
)

// Setting the head to a block the chain wrote itself. For a block whose parent is the head
// and whose state is present, BlockChain.SetCanonical writes the head markers, the canonical
// hash and the transactions' lookup entries (writeHeadBlock), then reads the block's receipts
// back from the database and derives every field again, only to send them on go-ethereum's
// own event feeds. Nothing here subscribes to those feeds (the chain announces with the
// receipts in hand, write.go), and the read-back decodes every receipt and recomputes every
// bloom: 80–90 ms of a core for a block of 10,000 transactions, on the boundary between a
// block and the next one's first flashblock. So the sequencer's write calls writeHeadBlock
// itself. op-geth does not export it (go-ethereum's WriteBlockAndSetHead, which did, took
// the state to commit, which CommitExecuted has already committed); op-geth is frozen, so
// the signature below cannot move under us. TestSetHeadAsInsertChain compares what it
// writes with what go-ethereum's InsertChain writes for the same blocks.

//go:linkname writeHeadBlock github.com/ethereum/go-ethereum/core.(*BlockChain).writeHeadBlock
func writeHeadBlock(bc *core.BlockChain, block *types.Block)

// errChainClosed refuses a head set once Close has begun (SetCanonical's errChainStopped).
var errChainClosed = errors.New("chain closed")

// setExecutedHead makes block the head, as SetCanonical would, without its receipts' read-back. block
// must be stored with its receipts, its state committed, and its parent the head; the caller
// holds the chain's write (Write's contract), so nothing else moves the head meanwhile. It
// refuses once Close has begun: writeHeadBlock ends the process on a failed database write.
func (c *Chain) setExecutedHead(block *types.Block) error {
	c.headMu.Lock()
	defer c.headMu.Unlock()
	if c.closed {
		return errChainClosed
	}
	if head := c.bc.CurrentBlock(); block.ParentHash() != head.Hash() {
		return fmt.Errorf("%w %d (%s)", ErrNotOnHead, head.Number.Uint64(), head.Hash().TerminalString())
	}
	if !c.bc.HasState(block.Root()) {
		return fmt.Errorf("state %s of block %d is missing", block.Root(), block.NumberU64())
	}
	writeHeadBlock(c.bc, block)
	return nil
}
