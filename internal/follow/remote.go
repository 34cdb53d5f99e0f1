package follow

import (
	"context"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"

	"github.com/flashrpc/flashrpc/internal/flashblocks"
	"github.com/flashrpc/flashrpc/internal/preconf"
)

// A replica on remote state (flashrpc follow --state remote; fork.Upstream.Replica) keeps no state
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
func (f *Follower) givenRoots(p *flashblocks.Payload) *preconf.Roots {
	w := p.Diff.WithdrawalsRoot
	return &preconf.Roots{State: p.Diff.StateRoot, Withdrawals: &w}
}

// prefetchState reads, in one upstream batch, the accounts a flashblock's transactions
// certainly touch (senders, recipients, the fee recipient and the OP Stack fee vaults) at the
// state after parent, so that their execution does not wait for the upstream one account at a
// time. The senders must be recovered. A failure is left to the execution, which reads again.
func (f *Follower) prefetchState(ctx context.Context, parent *types.Header, coinbase common.Address, txs []*types.Transaction, signer types.Signer) {
	accounts := make([]common.Address, 0, 2*len(txs)+4)
	accounts = append(accounts, coinbase)
	if f.chain.Config().IsOptimism() {
		accounts = append(accounts, params.OptimismBaseFeeRecipient, params.OptimismL1FeeRecipient, params.OptimismOperatorFeeRecipient)
	}
	for _, tx := range txs {
		if from, err := types.Sender(signer, tx); err == nil {
			accounts = append(accounts, from)
		}
		if to := tx.To(); to != nil {
			accounts = append(accounts, *to)
		}
	}
	if f.fork == nil {
		return
	}
	if err := f.fork.PrefetchState(ctx, parent, accounts, nil); err != nil {
		f.log.Debug("prefetching a flashblock's accounts from the upstream failed", "block", parent.Number.Uint64()+1, "err", err)
	}
}
