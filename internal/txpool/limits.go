package txpool

import (
	"fmt"
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum/core/txpool"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/holiman/uint256"
)

// Making room. A plan lists what would be dropped for a transaction to fit; it is applied only
// when the whole transaction fits, so a refused transaction changes nothing. Every function
// here needs p.mu held.

// cut is a number of transactions to drop from one end of an account's list: the newest
// executable ones (tail) or the highest queued nonces.
type cut struct {
	acct  *account
	n     int
	slots uint64
}

// pendingPlan is the executable transactions to drop, newest of each account first.
type pendingPlan struct{ cuts []*cut }

func (pl *pendingPlan) of(acct *account) *cut {
	for _, c := range pl.cuts {
		if c.acct == acct {
			return c
		}
	}
	c := &cut{acct: acct}
	pl.cuts = append(pl.cuts, c)
	return c
}

// slotsLeft is acct's executable slots once the plan is applied.
func (pl *pendingPlan) slotsLeft(acct *account) uint64 {
	for _, c := range pl.cuts {
		if c.acct == acct {
			return acct.pendingSlots - c.slots
		}
	}
	return acct.pendingSlots
}

// tail is acct's newest executable transaction the plan keeps, or nil.
func (pl *pendingPlan) tail(acct *account) *types.Transaction {
	n := len(acct.pending)
	for _, c := range pl.cuts {
		if c.acct == acct {
			n -= c.n
		}
	}
	if n <= 0 {
		return nil
	}
	return acct.pending[n-1]
}

func (pl *pendingPlan) drop(acct *account, tx *types.Transaction) uint64 {
	c := pl.of(acct)
	s := numSlots(tx)
	c.n++
	c.slots += s
	return s
}

// planPendingRoomLocked plans room for slots more executable slots of acct, for tx (nil when
// a queued transaction of acct is being promoted). When the executable slots are full it
// takes, as go-ethereum's pool does: first the newest transactions of the account holding the
// most slots, while that account holds more than its guarantee (Config.AccountSlots) and more
// than acct will; for a new transaction (not a promotion) of an account within its guarantee,
// then the newest transaction of the account whose newest one pays the least, when tx pays
// more. Otherwise tx is refused.
func (p *Pool) planPendingRoomLocked(acct *account, slots uint64, tx *types.Transaction) (*pendingPlan, error) {
	plan := &pendingPlan{}
	var freed uint64
	for p.pending-freed+slots > p.cfg.GlobalSlots {
		if victim := p.largestPendingLocked(acct, plan); victim != nil {
			if left := plan.slotsLeft(victim); left > p.cfg.AccountSlots && left > acct.pendingSlots+slots {
				freed += plan.drop(victim, plan.tail(victim))
				continue
			}
		}
		if tx == nil {
			return nil, ErrPoolFull
		}
		if acct.pendingSlots+slots > p.cfg.AccountSlots {
			return nil, fmt.Errorf("%w: all %d executable slots are in use and %s already holds %d of them (%d are guaranteed per account); send more once some are pre-confirmed",
				ErrPoolFull, p.cfg.GlobalSlots, acct.addr, acct.pendingSlots, p.cfg.AccountSlots)
		}
		victim, cheapest := p.cheapestPendingLocked(acct, plan)
		if victim == nil || priceCmp(tx, cheapest, p.baseFee) <= 0 {
			return nil, fmt.Errorf("%w: all %d executable slots are in use and this transaction pays no more than the cheapest executable one (effective tip %s wei); raise its tip",
				txpool.ErrUnderpriced, p.cfg.GlobalSlots, tipOf(cheapest, p.baseFee))
		}
		freed += plan.drop(victim, cheapest)
	}
	return plan, nil
}

// applyPendingPlanLocked drops what the plan lists.
func (p *Pool) applyPendingPlanLocked(plan *pendingPlan) {
	for _, c := range plan.cuts {
		for range c.n {
			p.dropPendingLocked(c.acct, len(c.acct.pending)-1)
		}
		p.forgetIfEmptyLocked(c.acct)
	}
}

// largestPendingLocked returns the account other than skip that holds the most executable
// slots once plan is applied (ties: the lowest address), or nil.
func (p *Pool) largestPendingLocked(skip *account, plan *pendingPlan) *account {
	var best *account
	var most uint64
	for _, acct := range p.accounts {
		if acct == skip {
			continue
		}
		left := plan.slotsLeft(acct)
		if left == 0 {
			continue
		}
		if best == nil || left > most || (left == most && acct.addr.Cmp(best.addr) < 0) {
			best, most = acct, left
		}
	}
	return best
}

// cheapestPendingLocked returns, among the accounts other than skip, the one whose newest
// executable transaction (once plan is applied) pays the least, and that transaction.
func (p *Pool) cheapestPendingLocked(skip *account, plan *pendingPlan) (*account, *types.Transaction) {
	var best *account
	var cheapest *types.Transaction
	for _, acct := range p.accounts {
		if acct == skip {
			continue
		}
		tail := plan.tail(acct)
		if tail == nil {
			continue
		}
		if best == nil {
			best, cheapest = acct, tail
			continue
		}
		if c := priceCmp(tail, cheapest, p.baseFee); c < 0 || (c == 0 && acct.addr.Cmp(best.addr) < 0) {
			best, cheapest = acct, tail
		}
	}
	return best, cheapest
}

// queuePlan is the queued transactions to drop, highest nonces of each account first.
type queuePlan struct{ cuts []*cut }

// planQueueRoomLocked plans room for slots more queued slots of acct, for a transaction with
// this nonce. Within the account, its queued transactions at higher nonces give way, highest
// first (go-ethereum keeps the lowest nonces); if the lower ones alone fill
// Config.AccountQueue the transaction is refused. Within the pool, queued transactions that
// outlived Config.Lifetime go first, then those of the other accounts, the oldest heartbeat
// first (go-ethereum's truncate order).
func (p *Pool) planQueueRoomLocked(acct *account, slots, nonce uint64, now time.Time) (*queuePlan, error) {
	plan := &queuePlan{}
	own := &cut{acct: acct}
	for acct.queuedSlots-own.slots+slots > p.cfg.AccountQueue {
		j := len(acct.queued) - 1 - own.n
		if j < 0 || acct.queued[j].Nonce() < nonce {
			return nil, fmt.Errorf("%w: %s already holds %d of the %d queued (future-nonce) slots an account may hold, at lower nonces; send nonce %d, its next executable one, first",
				ErrAccountQueueFull, acct.addr, acct.queuedSlots-own.slots, p.cfg.AccountQueue, acct.next())
		}
		own.n++
		own.slots += numSlots(acct.queued[j])
	}
	if own.n > 0 {
		plan.cuts = append(plan.cuts, own)
	}
	if p.queued-own.slots+slots <= p.cfg.GlobalQueue {
		return plan, nil
	}
	p.expireLocked(now, acct)
	freed := own.slots
	for _, victim := range p.queuedByAge(acct) {
		if p.queued-freed+slots <= p.cfg.GlobalQueue {
			break
		}
		c := &cut{acct: victim}
		for c.n < len(victim.queued) && p.queued-freed+slots > p.cfg.GlobalQueue {
			s := numSlots(victim.queued[len(victim.queued)-1-c.n])
			c.n++
			c.slots += s
			freed += s
		}
		plan.cuts = append(plan.cuts, c)
	}
	if p.queued-freed+slots > p.cfg.GlobalQueue {
		return nil, fmt.Errorf("%w: all %d queued (future-nonce) slots are in use by %s itself; send nonce %d, its next executable one, first",
			ErrPoolFull, p.cfg.GlobalQueue, acct.addr, acct.next())
	}
	return plan, nil
}

// applyQueuePlanLocked drops what the plan lists. The account making room (keep) is not
// forgotten even when emptied: its transaction is about to go in.
func (p *Pool) applyQueuePlanLocked(plan *queuePlan, keep *account) {
	for _, c := range plan.cuts {
		for range c.n {
			p.dropQueuedLocked(c.acct, len(c.acct.queued)-1)
		}
		if c.acct != keep {
			p.forgetIfEmptyLocked(c.acct)
		}
	}
}

// priceCmp orders transactions by what they pay, as go-ethereum's pool does when it evicts:
// effective tip at baseFee, then fee cap, then tip cap.
func priceCmp(a, b *types.Transaction, baseFee *big.Int) int {
	if baseFee != nil {
		if c := a.EffectiveGasTipCmp(b, uint256.MustFromBig(baseFee)); c != 0 {
			return c
		}
	}
	if c := a.GasFeeCapCmp(b); c != 0 {
		return c
	}
	return a.GasTipCapCmp(b)
}

func tipOf(tx *types.Transaction, baseFee *big.Int) *big.Int {
	if tx == nil {
		return new(big.Int)
	}
	return tx.EffectiveGasTipValue(baseFee)
}
