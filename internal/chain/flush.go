package chain

import (
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/trie"
	"github.com/ethereum/go-ethereum/triedb"
)

// flushState writes the state of root, committed to the trie database's memory, to disk (the
// hash scheme's archive) in parts: first the subtrie under each child of the root node, with
// the storage tries under its accounts, then the root. go-ethereum's hashdb.Database.Commit
// holds the database's lock for the whole of one call, and every read of a trie node that is
// not in the clean cache waits for it, as the just-committed state's new nodes are not: its
// readers (the feed reads the balances of the block's last pre-confirmation) and the next
// block's flashblocks, which open that state. The sequencer stores a block as a background job
// at a lower priority (Executed.StoreInBackground), whose thread the kernel may hold back
// while it holds the lock; in parts a reader waits for a sixteenth of the flush at most. Each
// part is what hashdb's own Cap writes: a dirty node goes to disk after its children, and a
// node no longer dirty (written by an earlier part, or a subtrie the block did not change) is
// skipped, so the database ends as one Commit of root leaves it (TestFlushStateInParts).
func flushState(db *triedb.Database, root common.Hash) error {
	if root == types.EmptyRootHash {
		return nil // nothing to write: no node has this hash
	}
	reader, err := db.NodeReader(root)
	if err != nil {
		return err
	}
	blob, err := reader.Node(common.Hash{}, nil, root)
	if err != nil {
		return err
	}
	var children []common.Hash
	trie.ForGatherChildren(blob, func(child common.Hash) { children = append(children, child) })
	for _, child := range children {
		if err := db.Commit(child, false); err != nil {
			return err
		}
	}
	return db.Commit(root, false)
}
