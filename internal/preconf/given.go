package preconf

import (
	"context"
	"errors"

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
// would refuse to write a state whose root is not its own.

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

// OpenGiven is OpenChecked for a block whose pre-confirmation 0 takes the given roots instead
// of computing them; check then sees the block with them.
func (p *Preconf) OpenGiven(ctx context.Context, attrs Attributes, roots Roots, check func(*types.Block) error) (*Snapshot, error) {
	return p.openChecked(ctx, attrs, &roots, check)
}

// CommitGiven is CommitChecked with the given roots in the partial block instead of computed
// ones.
func (b *Batch) CommitGiven(ctx context.Context, roots Roots, check func(*types.Block) error) (*Snapshot, error) {
	if b.done {
		return nil, errors.New("preconf: batch already finished")
	}
	w := b.p.work // the batch holds the writer lock
	w.given = &roots
	defer func() { w.given = nil }()
	return b.CommitChecked(ctx, check)
}
