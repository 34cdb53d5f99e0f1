package events

import (
	"context"

	"github.com/ethereum/go-ethereum/core/types"

	"github.com/flashrpc/flashrpc/internal/api/param"
	"github.com/flashrpc/flashrpc/internal/rpc"
)

// The newPendingTransactions subscription, go-ethereum's (params: optional full = false):
// one notification per transaction, its hash or, with true, the transaction object. As with
// the pending-transaction filters (filters.go), what is "pending" is what the endpoint shows:
// on the pre-confirmed endpoint each transaction as it is pre-confirmed (the object as
// eth_getTransactionByHash answers it then, blockHash null), on the standard endpoint each
// transaction of a sealed block as the block is sealed, as on both endpoints of a node
// without pre-confirmations (core.ShowsPreconfirmations). go-ethereum sends transactions as they
// enter its pool; this node's pool is not visible on either endpoint. ethers' and viem's
// pending-transaction watchers over WebSocket subscribe to it. Deposits (an OP Stack block's
// L1-attributes deposit, dev_deposit's) are not announced, here nor to the
// pending-transaction filters: they never pass through a pool, and op-geth never announces
// them either; newFlashblockTransactions and the blocks show them.

func (s *streams) subscribePendingTransactions(ctx context.Context, p rpc.Params, sub *rpc.Subscription) error {
	if err := param.CheckCount(p, 1); err != nil {
		return err
	}
	var full bool
	if param.Present(p, 0) {
		var err error
		if full, err = param.DecodeBool(p, 0); err != nil {
			return err
		}
	}
	s.add(sub, subPendingTxs, &subscriber{full: full})
	return nil
}

// deliverSurface hands ev to the newPendingTransactions subscribers and to the polling filters
// (filters_events.go). It runs on the drain goroutine with s.mu held, after the other kinds.
func (s *streams) deliverSurface(ev *event) {
	s.sendPendingTxsLocked(ev)
	s.deliverFilters(ev)
}

// sendPendingTxsLocked sends the transactions ev makes visible: a pre-confirmation's new ones
// (pre-confirmed endpoint), a sealed block's (standard endpoint, and every endpoint that shows
// no pre-confirmations). s.mu must be held.
func (s *streams) sendPendingTxsLocked(ev *event) {
	subs := s.subs[subPendingTxs]
	if len(subs) == 0 {
		return
	}
	var enc *txEncoder
	first := 0
	switch {
	case ev.kind == eventSnapshot:
		enc, first = newTxEncoder(s.api, ev.snap.Block, ev.snap), ev.snap.FirstNew
	case ev.kind == eventHead && !s.api.ShowsPreconfirmations():
		enc = newTxEncoder(s.api, ev.head.Block, nil)
	default:
		return
	}
	for sub, sr := range subs {
		if sr.since > ev.seq {
			continue
		}
		for i := first; i < len(enc.block.Transactions()); i++ {
			if announced(enc.block.Transactions()[i]) {
				sub.Notify(enc.get(i, sr.full))
			}
		}
	}
}

// announced reports whether tx is announced as a pending transaction: every transaction but
// a deposit.
func announced(tx *types.Transaction) bool { return !tx.IsDepositTx() }
