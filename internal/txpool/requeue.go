package txpool

import "github.com/ethereum/go-ethereum/core/types"

// Requeue returns to the pool transactions that left it for a block that was then lost (the
// dev sequencer's blocks dropped by a failed chain write), in the order given. Each is checked
// against view and kept as Add would keep it: one that is no longer valid (its nonce used
// since, its sender's balance spent, a replacement pooled meanwhile) is refused as Add refuses
// it. Unlike Add, Requeue does not run the SetOnAdd hook: its caller is the sequencer itself,
// which takes the pool's executable transactions at its next build. The result holds one
// error per transaction, nil for those kept.
func (p *Pool) Requeue(view View, txs ...*types.Transaction) []error {
	errs := make([]error, len(txs))
	for i, tx := range txs {
		errs[i] = p.add(tx, view)
	}
	return errs
}
