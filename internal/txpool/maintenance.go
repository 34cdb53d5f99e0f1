package txpool

import (
	"math/big"
	"slices"
	"time"

	"github.com/ethereum/go-ethereum/core/txpool"
	"github.com/ethereum/go-ethereum/core/types"
)

// Moving transactions between executable and queued, and dropping them. Every function here
// needs p.mu held.

// syncLocked restores acct's order after its nonce moved or transactions were removed: it
// drops transactions whose nonce was used, queues again an executable run that no longer
// starts at the nonce (from the first gap on), promotes queued transactions that continue the
// run, and keeps the account within Config.AccountQueue by dropping its highest nonces.
func (p *Pool) syncLocked(acct *account, now time.Time) {
	for len(acct.pending) > 0 && acct.pending[0].Nonce() < acct.nonce {
		p.dropPendingLocked(acct, 0)
	}
	for len(acct.queued) > 0 && acct.queued[0].Nonce() < acct.nonce {
		p.dropQueuedLocked(acct, 0)
	}
	for i, tx := range acct.pending {
		if tx.Nonce() != acct.nonce+uint64(i) {
			p.demoteLocked(acct, i, now)
			break
		}
	}
	p.promoteLocked(acct, now)
	for acct.queuedSlots > p.cfg.AccountQueue {
		p.dropQueuedLocked(acct, len(acct.queued)-1)
	}
}

// filterLocked drops acct's transactions that cost more than balance (with the rollup cost
// of an OP Stack chain, rollupCost nil elsewhere) or need more gas than the block has
// (go-ethereum's list.Filter, op-geth's with the rollup cost); the executable ones after the
// first such transaction are queued again.
func (p *Pool) filterLocked(acct *account, balance *big.Int, gasLimit uint64, rollupCost txpool.RollupCostFunc) {
	costly := func(tx *types.Transaction) bool {
		if tx.Gas() > gasLimit {
			return true
		}
		cost, overflow := txpool.TotalTxCost(tx, rollupCost)
		return overflow || cost.ToBig().Cmp(balance) > 0
	}
	if first := slices.IndexFunc(acct.pending, costly); first >= 0 {
		p.demoteLocked(acct, first, time.Time{})
	}
	for i := len(acct.queued) - 1; i >= 0; i-- {
		if costly(acct.queued[i]) {
			p.dropQueuedLocked(acct, i)
		}
	}
}

// demoteLocked queues acct's executable transactions from position i on.
func (p *Pool) demoteLocked(acct *account, i int, now time.Time) {
	if now.IsZero() {
		now = p.cfg.Now()
	}
	for len(acct.pending) > i {
		tx := acct.removePending(len(acct.pending) - 1)
		s := numSlots(tx)
		p.pending -= s
		acct.insertQueued(tx, now)
		p.queued += s
	}
}

// promoteLocked makes acct's queued transactions executable while they continue its run and
// the executable slots have room (making room only from accounts over their guarantee).
func (p *Pool) promoteLocked(acct *account, now time.Time) {
	promoted := false
	for len(acct.queued) > 0 && acct.queued[0].Nonce() == acct.next() {
		tx := acct.queued[0]
		s := numSlots(tx)
		plan, err := p.planPendingRoomLocked(acct, s, nil)
		if err != nil {
			break // it stays queued until there is room
		}
		p.applyPendingPlanLocked(plan)
		acct.removeQueued(0)
		p.queued -= s
		acct.pending = append(acct.pending, tx)
		acct.pendingSlots += s
		p.pending += s
		promoted = true
	}
	if promoted && len(acct.queued) > 0 {
		acct.beat = now
	}
}

// expireLocked drops the queued transactions of every account whose heartbeat is older than
// Config.Lifetime. Emptied accounts other than keep are forgotten.
func (p *Pool) expireLocked(now time.Time, keep *account) {
	for _, acct := range p.accounts {
		if len(acct.queued) == 0 || now.Sub(acct.beat) <= p.cfg.Lifetime {
			continue
		}
		for len(acct.queued) > 0 {
			p.dropQueuedLocked(acct, len(acct.queued)-1)
		}
		if acct != keep {
			p.forgetIfEmptyLocked(acct)
		}
	}
}

// truncateQueueLocked drops queued transactions until the queue is within Config.GlobalQueue:
// the highest nonces of the account with the oldest heartbeat first (go-ethereum's truncate).
// Emptied accounts other than keep are forgotten.
func (p *Pool) truncateQueueLocked(keep *account) {
	if p.queued <= p.cfg.GlobalQueue {
		return
	}
	for _, acct := range p.queuedByAge(nil) {
		for len(acct.queued) > 0 && p.queued > p.cfg.GlobalQueue {
			p.dropQueuedLocked(acct, len(acct.queued)-1)
		}
		if acct != keep {
			p.forgetIfEmptyLocked(acct)
		}
		if p.queued <= p.cfg.GlobalQueue {
			return
		}
	}
}

// queuedByAge returns the accounts with queued transactions other than skip, oldest
// heartbeat first (ties by address).
func (p *Pool) queuedByAge(skip *account) []*account {
	var out []*account
	for _, acct := range p.accounts {
		if acct != skip && len(acct.queued) > 0 {
			out = append(out, acct)
		}
	}
	slices.SortFunc(out, func(a, b *account) int {
		if c := a.beat.Compare(b.beat); c != 0 {
			return c
		}
		return a.addr.Cmp(b.addr)
	})
	return out
}

// dropPendingLocked drops acct's executable transaction i from the pool.
func (p *Pool) dropPendingLocked(acct *account, i int) {
	tx := acct.removePending(i)
	p.pending -= numSlots(tx)
	delete(p.all, tx.Hash())
}

// dropQueuedLocked drops acct's queued transaction i from the pool.
func (p *Pool) dropQueuedLocked(acct *account, i int) {
	tx := acct.removeQueued(i)
	p.queued -= numSlots(tx)
	delete(p.all, tx.Hash())
}

// forgetIfEmptyLocked removes acct from the pool when it holds nothing.
func (p *Pool) forgetIfEmptyLocked(acct *account) {
	if acct.empty() && p.accounts[acct.addr] == acct {
		delete(p.accounts, acct.addr)
	}
}
