package chain

import (
	"fmt"
	"slices"

	"github.com/ethereum/go-ethereum/core/rawdb"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/ethdb"
)

// Recovery after an unclean stop, under the path scheme.
//
// The path scheme keeps the last blocks' state changes in memory and writes them to disk in
// the background, or all at once at a clean shutdown (its journal). After kill -9 the state on
// disk is an older block's. go-ethereum's BlockChain then rewinds the chain to the newest block
// whose state it has and deletes the blocks above it, although they were sealed, durable and
// served. So Open first reads those blocks (pathUnpersisted), lets the BlockChain rewind, and
// inserts them again (reexecute): go-ethereum executes each one on its parent's state, checks
// it against its header's roots and makes it the head again, with the same hash.
//
// A dev chain's block that its transactions do not give (the cheats: anvil_setBalance and its
// kind) cannot be executed again: WriteCheated writes its state to disk before it becomes the
// head (persist.go), so recovery starts above it and executes plain blocks only. A block that
// fails to execute again all the same (one sealed by a flashrpc that did not persist cheated
// blocks) is lost, with everything above it, and Open says so. The hash scheme writes each
// block's state before the block is the head and needs none of this.

// pathUnpersisted returns the canonical blocks, oldest first, whose state the path scheme had
// not written to disk when the chain in db last stopped: those above the newest block whose
// state id is at or below the persisted one. It reads the database directly, before the
// BlockChain opens and rewinds it. At a clean stop these states are in the journal and the
// BlockChain does not rewind; the blocks are read for nothing then.
func pathUnpersisted(db ethdb.Database) []*types.Block {
	headHash := rawdb.ReadHeadBlockHash(db)
	number, ok := rawdb.ReadHeaderNumber(db, headHash)
	if !ok || number == 0 {
		return nil
	}
	persisted := rawdb.ReadPersistentStateID(db)
	var blocks []*types.Block
	for n := number; n > 0; n-- {
		hash := rawdb.ReadCanonicalHash(db, n)
		block := rawdb.ReadBlock(db, hash, n)
		if block == nil {
			break
		}
		if id := rawdb.ReadStateID(db, block.Root()); id != nil && *id <= persisted {
			break
		}
		blocks = append(blocks, block)
	}
	slices.Reverse(blocks)
	return blocks
}

// reexecute inserts again the blocks of kept (pathUnpersisted's, before the BlockChain opened)
// that the BlockChain rewound, and returns how many; on an error the blocks from the failing
// one on are lost, and the error names them and why.
func (c *Chain) reexecute(kept []*types.Block) (int, error) {
	head := c.bc.CurrentBlock()
	i := slices.IndexFunc(kept, func(b *types.Block) bool { return b.NumberU64() > head.Number.Uint64() })
	if i < 0 {
		return 0, nil // the journal had them: nothing was rewound
	}
	lost := kept[i:]
	if lost[0].ParentHash() != head.Hash() {
		return 0, fmt.Errorf("blocks %d to %d lost after an unclean stop: the chain rewound to block %d (%s), which is not block %d's parent", lost[0].NumberU64(), lost[len(lost)-1].NumberU64(), head.Number.Uint64(), head.Hash().TerminalString(), lost[0].NumberU64())
	}
	c.log.Warn("the state of the last blocks was not on disk after an unclean stop; executing them again", "from", lost[0].NumberU64(), "to", lost[len(lost)-1].NumberU64())
	for _, b := range lost {
		c.impersonated(b) // the dev chain's impersonated transactions need their sender
	}
	n, err := c.bc.InsertChain(lost)
	if err != nil {
		failed := lost[min(n, len(lost)-1)]
		return n, fmt.Errorf("blocks %d to %d lost after an unclean stop: executing block %d (%s) again failed (a dev chain's cheated block whose state was not written to disk when it was sealed cannot be re-executed; --state.scheme hash keeps every block's state on disk): %w",
			failed.NumberU64(), lost[len(lost)-1].NumberU64(), failed.NumberU64(), failed.Hash().TerminalString(), err)
	}
	if err := c.db.SyncKeyValue(); err != nil {
		return n, fmt.Errorf("sync chain database after executing blocks %d to %d again: %w", lost[0].NumberU64(), lost[len(lost)-1].NumberU64(), err)
	}
	return n, nil
}
