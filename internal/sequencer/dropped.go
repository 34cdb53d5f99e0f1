package sequencer

import "github.com/flashrpc/flashrpc/internal/txpool"

// requeueDroppedLocked returns to the pool the transactions of the blocks a failed chain write
// dropped (preconf.Preconf.TakeDropped), checked against view, the block just opened on the
// chain's head: the ones still valid are pre-confirmed and sealed again, in their order, and
// their senders' nonces go on from there. s.mu must be held.
//
// They go back without the pool's Add hook (txpool.Pool.Requeue), so automine does not seal
// them at once: they are sealed by the next seal, as any transaction in the pool. Only the
// timer's seals are written asynchronously and can be dropped, and the timer does not seal
// under automine, so this happens only to a write that failed while automine was being turned
// on (SetAutomine waits for it): its transactions, like those pre-confirmed but not sealed
// when automine came on, wait for the next transaction sent or the next evm_mine.
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
