package follow

import (
	"github.com/flashrpc/flashrpc/internal/flashblocks"
	"github.com/flashrpc/flashrpc/internal/preconf"
)

// A replica on remote state (flashrpc follow --state remote; chain.Fork.Replica) keeps no state
// of its own: its sealed blocks are the upstream's, inserted with their receipts checked but
// not executed, and the state after each is read from the upstream at that block. Flashblocks
// are re-executed on that state as on a replica with local state, but the state root (and the
// withdrawals root, which on the OP Stack is a storage root) cannot be computed without the
// upstream's trie: the partial block takes the ones the sequencer published, and the check
// still demands the published block hash, which commits to the transactions, receipts root,
// bloom and gas used computed here. Such a replica never seals a block itself: index 0 of
// block N+1 waits until the upstream serves N (Config.ParentWait), and a block pre-confirmed
// to its end becomes the head when the upstream's N arrives.

// givenRoots returns the roots a flashblock's partial block takes from the sequencer.
func (f *Follower) givenRoots(p *flashblocks.Payload) preconf.Roots {
	w := p.Diff.WithdrawalsRoot
	return preconf.Roots{State: p.Diff.StateRoot, Withdrawals: &w}
}
