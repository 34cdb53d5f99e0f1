package sequencer

import (
	"context"
	"errors"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/flashrpc/flashrpc/internal/preconf"
)

// build is a pre-confirmation under construction: a preconf batch on the block in progress
// that takes the pool's executable transactions, once (preconfirmLocked) or in several rounds
// before it is published (the timer's staging, stage.go). Its transactions stay in the pool
// until it is committed, so that a transaction is always either in the pool or in a published
// pre-confirmation; the rounds skip what an earlier round took by nonce. Not safe for
// concurrent use: it lives under s.mu.
type build struct {
	batch  *preconf.Batch // holds the Preconf's writer lock until commit
	block  *types.Block   // the pre-confirmation it builds on
	budget uint64         // the cumulative gas this pre-confirmation may bring the block to (budget.go)
	// next is, for each sender one of whose transactions a round took (or found its nonce
	// used), the nonce after it: the pool still holds those transactions until commit.
	next  map[common.Address]uint64
	spent []*types.Transaction // taken, or beaten to their nonce: out of the pool at commit
}

// beginLocked starts the next pre-confirmation of the block in progress, opening the block
// again when the last one could not be opened or its parent's chain write failed. s.mu must
// be held.
func (s *Sequencer) beginLocked(ctx context.Context) (*build, error) {
	batch, err := s.preconf.Begin()
	if errors.Is(err, preconf.ErrNoBlock) {
		if err != preconf.ErrNoBlock {
			// The chain write of the last sealed block failed (preconf.SealAsync): that block
			// and the one built on it are gone from the View; say so, once, here.
			s.log.Error("writing a sealed block failed: it and the block built on it were dropped, building goes on from the chain's head", "err", err)
		}
		// Opening the block failed after the last seal (a fork's upstream did not answer
		// the reads of its system calls), or its parent's write failed: try again now.
		if err := s.openLocked(ctx); err != nil {
			return nil, err
		}
		batch, err = s.preconf.Begin()
	}
	if err != nil {
		return nil, err
	}
	current := batch.Base()
	if current == nil { // a rebuild (devcontrol.go) that failed half-way: open the block again
		batch.Abort()
		return nil, preconf.ErrNoBlock
	}
	return &build{
		batch:  batch,
		block:  current.Block,
		budget: s.gasBudget(current),
		next:   make(map[common.Address]uint64),
	}, nil
}

// addPending executes the pool's executable transactions that earlier rounds did not take, in
// inclusion order (highest effective tip first, nonce order per sender), until the
// pre-confirmation's gas budget closes it or the timer's clock passes until (the zero time: no
// limit); what is left waits for the next round or pre-confirmation. Transactions that can never be
// included leave the pool at once; those that may later (a nonce gap, a full block, a fee cap below
// the base fee, too little balance for now) wait, with their sender's later ones.
func (b *build) addPending(ctx context.Context, s *Sequencer, until time.Time) {
	pending := s.pool.Pending()
	for addr, n := range b.next {
		txs := pending[addr]
		i := 0
		for i < len(txs) && txs[i].Nonce() < n {
			i++
		}
		if i == len(txs) {
			delete(pending, addr)
		} else {
			pending[addr] = txs[i:]
		}
	}
	used := b.batch.GasUsed()
	queue := newPriceQueue(pending, b.block.BaseFee())
	var invalid []*types.Transaction
	for queue.Len() > 0 {
		tx, from := queue.peek(), queue.sender()
		if used+tx.Gas() > b.budget && used+tx.Gas() <= b.block.GasLimit() {
			break // it waits for a later flashblock of this block, the ones behind it too (budget.go)
		}
		if !until.IsZero() && s.ticks.Now().After(until) {
			break
		}
		err := b.batch.Add(ctx, tx)
		if err == nil {
			used = b.batch.GasUsed()
		}
		switch {
		case err == nil, errors.Is(err, core.ErrNonceTooLow):
			// Included, or its nonce was used by another transaction; the sender's next one
			// may fit.
			b.spent = append(b.spent, tx)
			b.next[from] = tx.Nonce() + 1
			queue.shift()
		case errors.Is(err, preconf.ErrStateUnavailable):
			s.log.Warn("a transaction waits: its state could not be read", "hash", tx.Hash(), "err", err)
			queue.dropSender()
		case neverIncludable(err, tx, b.block.GasLimit()):
			s.log.Debug("dropping a transaction that can never be included", "hash", tx.Hash(), "err", err)
			invalid = append(invalid, tx)
			queue.dropSender()
		default:
			queue.dropSender()
		}
	}
	s.pool.Remove(invalid...)
}

// commit publishes the pre-confirmation, as opts say, and hands the pool the new state.
func (b *build) commit(ctx context.Context, s *Sequencer, opts preconf.PublishOptions) (*preconf.Snapshot, error) {
	snap, err := b.batch.Commit(ctx, opts)
	// The pool holds what is not pre-confirmed yet; a pre-confirmed transaction is found in the
	// block in progress until its block is sealed. The senders' nonces in the pool move past
	// the spent ones before the Reset below: a send validated meanwhile against the view from
	// before this build must not take their later transactions for a run behind a gap
	// (txpool.Pool.RemoveUsed).
	s.pool.RemoveUsed(b.spent...)
	if snap != nil { // published, even when its seal failed (preconf.ErrSealFailed)
		s.pool.Reset(s.poolView(snap))
	}
	return snap, err
}
