package preconf

import (
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
)

// A replica that reads its state from the upstream (flashrpc follow --state remote) executes
// each flashblock on that state but cannot compute a state root: the upstream's trie is not
// here. It takes the roots that depend on the trie from what the sequencer published, and
// everything else of the partial block (transactions root, receipts root, bloom, gas used) is
// still computed from its own execution; the block hash commits to all of it, so a check that
// compares the hash with the published one verifies the execution's receipts, while the state
// root is the sequencer's, bound by that hash. Such a block is never sealed here: the chain
// would refuse to write a state whose root is not its own. Such a writer passes the roots in
// PublishOptions.Roots to Open and Batch.Commit.

// Roots are the roots a partial block takes as given instead of computing them.
type Roots struct {
	// State is the block's state root.
	State common.Hash
	// Withdrawals, when set, is the header's withdrawals root (the OP Stack's
	// L2ToL1MessagePasser storage root from Isthmus on); it replaces only a root the block
	// has.
	Withdrawals *common.Hash
}

// apply puts the given roots into header; a nil r changes nothing.
func (r *Roots) apply(header *types.Header) {
	if r == nil {
		return
	}
	header.Root = r.State
	if r.Withdrawals != nil && header.WithdrawalsHash != nil {
		w := *r.Withdrawals
		header.WithdrawalsHash = &w
	}
}
