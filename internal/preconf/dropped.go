package preconf

import "github.com/ethereum/go-ethereum/core/types"

// When the chain write of a block SealAsync sealed fails (a full disk), that block and the
// block in progress built on it are gone: their transactions were pre-confirmed, never sealed.
// The Preconf keeps those transactions, in block order, until the writer takes them back with
// TakeDropped; the dev sequencer returns them to its pool, which checks each again against the
// block it opens next, so that they are sealed later with their senders' nonces continuing.

// TakeDropped returns the transactions of the blocks a failed chain write dropped since the
// last call, in the order the blocks carried them, and forgets them. Deposits are left out:
// only L1 makes them (a dev chain's user deposits are lost with their block, as after a crash),
// and the next block's opening carries an L1-attributes deposit of its own. The caller owns
// the slice.
func (p *Preconf) TakeDropped() []*types.Transaction {
	p.mu.Lock()
	defer p.mu.Unlock()
	txs := p.dropped
	p.dropped = nil
	return txs
}

// dropLocked keeps, for TakeDropped, the transactions of the block whose write sw failed and
// of the block in progress when it builds on that block. p.mu must be held.
func (p *Preconf) dropLocked(sw *sealWrite) {
	p.dropped = appendUserTxs(p.dropped, sw.block.Transactions())
	if w := p.work; w != nil && w.parent.Hash() == sw.head.Hash() {
		p.dropped = appendUserTxs(p.dropped, w.txs)
	}
}

// appendUserTxs appends the transactions of txs that are not deposits to dst.
func appendUserTxs(dst, txs []*types.Transaction) []*types.Transaction {
	for _, tx := range txs {
		if !tx.IsDepositTx() {
			dst = append(dst, tx)
		}
	}
	return dst
}
