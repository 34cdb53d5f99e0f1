package chain

import (
	"fmt"

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
// readers (the feed reads the balances of the block's last pre-confirmation), the next
// block's flashblocks, which open that state, and reads of older states. A block stored as a
// background job (Executed.StoreInBackground) holds it at a lower priority, and the kernel
// may hold its thread back meanwhile; in parts a reader waits for one part at most, about a
// sixteenth of the flush when the block's changes are spread over the account trie (a
// contract's storage trie goes whole in its account's part; a root with one child leaves one
// large part). Each part is what hashdb's own Cap writes: a dirty node goes to disk after its
// children, and a node no longer dirty (written by an earlier part, or a subtrie the block did
// not change) is skipped, so the database ends as one Commit of root leaves it
// (TestFlushStateInParts).
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
	if len(blob) == 0 { // hashdb's reader returns no node and no error for a missing one
		return fmt.Errorf("flush state %s: root node missing", root)
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
