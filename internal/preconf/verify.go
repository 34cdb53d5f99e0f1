package preconf

import (
	"context"
	"errors"
	"fmt"

	"github.com/ethereum/go-ethereum/core/types"

	"github.com/flashrpc/flashrpc/internal/chain"
)

// A writer that pre-confirms what someone else built (a replica following a remote feed)
// must publish only what it has verified: PublishOptions.Check sees each partial block of Open
// and Batch.Commit before any reader, listener or View can see it. A block that fails its
// check is discarded whole, and `pending` falls back to the sealed head until the next Open.

// ErrCheckFailed wraps the error of a check that refused a pre-confirmation.
var ErrCheckFailed = errors.New("pre-confirmation refused")

// Abort ends the batch without publishing it and discards the block in progress, whose state
// holds the batch's transactions; `pending` falls back to the sealed head. It releases the
// writer lock.
func (b *Batch) Abort() {
	if b.done {
		return
	}
	b.done = true
	b.p.discardLocked()
	b.p.mu.Unlock()
}

// Last returns the newest snapshot of the block in progress, nil between blocks. Unlike
// Current it does not depend on the View: it stays the block's last pre-confirmation while
// the sealed head moves under it, until the block is sealed or discarded.
func (p *Preconf) Last() *Snapshot {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.last
}

// discardLocked drops the block in progress and publishes the sealed head alone. p.mu must be
// held.
func (p *Preconf) discardLocked() {
	p.work, p.last = nil, nil
	p.publishView(nil)
}

// ReplaceWith ends the block in progress with block, the sealed block of the same number
// built elsewhere (a replica's upstream), when it differs from what was pre-confirmed, and
// inserts it. As Dev.SealWith does, it clears the block in progress, publishes the retraction
// (the pre-confirmed logs block does not carry, its logs that were not pre-confirmed, the
// dropped transactions) to OnRetract listeners, then inserts block; the chain executes and
// validates it, and an error says why it was refused. To know block's logs before it is
// inserted, its transactions are executed once here on the parent's state. Without a block
// in progress of that number on the same parent there is nothing to retract: block is
// inserted after the block in progress, if any, is discarded.
func (p *Preconf) ReplaceWith(ctx context.Context, block *types.Block) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.settleLocked(true) // a failed write has discarded the block in progress
	w := p.work
	var r *Retraction
	if w != nil && w.header.Number.Uint64() == block.NumberU64() && w.parent.Hash() == block.ParentHash() {
		if receipts, err := executeBlock(ctx, p.chain, w.parent, block); err == nil {
			r = retraction(p.last, block, receipts)
		}
	}
	p.discardLocked()
	if r != nil {
		for _, fn := range p.retracts {
			fn(r)
		}
	}
	if err := p.chain.Insert(block); err != nil {
		return fmt.Errorf("replace: %w", err)
	}
	return nil
}

// executeBlock executes block's transactions on parent's state as the block in progress
// would, and returns their receipts.
func executeBlock(ctx context.Context, c *chain.Chain, parent *types.Header, block *types.Block) (types.Receipts, error) {
	h := block.Header()
	txs := block.Transactions()
	opening := 0
	for opening < len(txs) && txs[opening].IsDepositTx() {
		opening++
	}
	attrs := Attributes{
		ParentHash: h.ParentHash, Number: h.Number.Uint64(), Time: h.Time, GasLimit: h.GasLimit,
		FeeRecipient: h.Coinbase, PrevRandao: h.MixDigest, ExtraData: h.Extra, BaseFee: h.BaseFee,
		Transactions: txs[:opening],
	}
	if h.ParentBeaconRoot != nil {
		attrs.ParentBeaconRoot = *h.ParentBeaconRoot
	}
	w, err := openWork(ctx, c, parent, attrs)
	if err != nil {
		return nil, err
	}
	if err := w.applyOpening(ctx); err != nil {
		return nil, err
	}
	for i, tx := range txs[opening:] {
		if err := w.apply(ctx, tx); err != nil {
			return nil, fmt.Errorf("transaction %d: %w", opening+i, err)
		}
	}
	return w.receipts, nil
}
