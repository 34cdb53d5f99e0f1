package sequencer

import "github.com/flashrpc/flashrpc/internal/txpool"

// requeueDroppedLocked returns to the pool the transactions of the blocks a failed chain write
// dropped (preconf.Preconf.TakeDropped), checked against view, the block just opened on the
// chain's head: the ones still valid are pre-confirmed and sealed again, in their order, and
// their senders' nonces go on from there. s.mu must be held.
func (s *Sequencer) requeueDroppedLocked(view txpool.View) {
	txs := s.preconf.TakeDropped()
	if len(txs) == 0 {
		return
	}
	kept := 0
	for i, err := range s.pool.Requeue(view, txs...) {
		if err != nil {
			s.log.Warn("a transaction of a dropped block is no longer valid: not returned to the pool", "hash", txs[i].Hash(), "err", err)
			continue
		}
		kept++
	}
	s.log.Warn("returned the transactions of the dropped blocks to the pool", "returned", kept, "refused", len(txs)-kept)
}
