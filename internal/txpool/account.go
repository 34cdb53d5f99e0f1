package txpool

import (
	"slices"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
)

// account is one sender's transactions. The pool's mutex guards it.
type account struct {
	addr common.Address
	// nonce is the sender's nonce in the newest state the pool has seen (Reset, or an Add's
	// view when that is newer).
	nonce uint64
	// pending holds the executable transactions: consecutive nonces from nonce. Between a
	// Remove and the next Reset or Add of the sender it may have gaps; Pending hands it out
	// as it is and the sequencer stops at a gap.
	pending []*types.Transaction
	// queued holds the future-nonce transactions in nonce order, each above the pending run.
	queued []*types.Transaction

	pendingSlots, queuedSlots uint64

	// beat is the account's heartbeat (geth's): set when it first queues a transaction,
	// renewed whenever one of its transactions becomes executable or an executable one is
	// replaced. Its queued transactions expire Lifetime after it. Zero while nothing is queued.
	beat time.Time
}

// next is the nonce that continues the pending run.
func (a *account) next() uint64 {
	if n := len(a.pending); n > 0 {
		return a.pending[n-1].Nonce() + 1
	}
	return a.nonce
}

func (a *account) empty() bool { return len(a.pending) == 0 && len(a.queued) == 0 }

// findPending returns the position of the pending transaction with this nonce, or -1.
func (a *account) findPending(nonce uint64) int {
	return findNonce(a.pending, nonce)
}

// findQueued returns the position of the queued transaction with this nonce, or -1.
func (a *account) findQueued(nonce uint64) int {
	return findNonce(a.queued, nonce)
}

func findNonce(txs []*types.Transaction, nonce uint64) int {
	i, ok := slices.BinarySearchFunc(txs, nonce, func(tx *types.Transaction, n uint64) int {
		return cmpUint(tx.Nonce(), n)
	})
	if !ok {
		return -1
	}
	return i
}

// insertQueued adds tx to the queue in nonce order; no queued transaction has its nonce.
func (a *account) insertQueued(tx *types.Transaction, now time.Time) {
	i, _ := slices.BinarySearchFunc(a.queued, tx.Nonce(), func(t *types.Transaction, n uint64) int {
		return cmpUint(t.Nonce(), n)
	})
	a.queued = slices.Insert(a.queued, i, tx)
	a.queuedSlots += numSlots(tx)
	if a.beat.IsZero() {
		a.beat = now
	}
}

// removeQueued takes queued transaction i out of the account (not out of the pool's maps).
func (a *account) removeQueued(i int) *types.Transaction {
	tx := a.queued[i]
	a.queued = slices.Delete(a.queued, i, i+1)
	a.queuedSlots -= numSlots(tx)
	if len(a.queued) == 0 {
		a.beat = time.Time{}
	}
	return tx
}

// removePending takes pending transaction i out of the account (not out of the pool's maps).
// The transactions after it stay; the caller demotes them when they can no longer run.
func (a *account) removePending(i int) *types.Transaction {
	tx := a.pending[i]
	a.pending = slices.Delete(a.pending, i, i+1)
	a.pendingSlots -= numSlots(tx)
	return tx
}

func cmpUint(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
