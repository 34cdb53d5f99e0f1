package preconf

import (
	"context"
	"errors"
	"fmt"

	"github.com/ethereum/go-ethereum/common"
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

// retractLocked tells the OnRetract listeners of r; nothing when r is nil or the block in
// progress was hidden. p.mu must be held.
func (p *Preconf) retractLocked(r *Retraction) {
	if r == nil || p.hidden { // what no reader saw is not retracted (hidden.go)
		return
	}
	for _, fn := range p.retracts {
		fn(r)
	}
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
//
// The Mismatch it returns says where block departs from the pre-confirmations: nil when block
// begins with every pre-confirmed transaction, in order, with the same receipts (a sealed
// block may add transactions after them), and when there was nothing to compare.
func (p *Preconf) ReplaceWith(ctx context.Context, block *types.Block) (*Mismatch, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.settleLocked(true) // a failed write has discarded the block in progress
	w := p.work
	var r *Retraction
	var m *Mismatch
	if w != nil && w.header.Number.Uint64() == block.NumberU64() && w.parent.Hash() == block.ParentHash() {
		receipts, err := executeBlock(ctx, p.chain, w.parent, block)
		if err == nil {
			r = retraction(p.last, block, receipts)
		}
		m = firstMismatch(p.last, block, receipts, err)
	}
	p.discardLocked()
	p.retractLocked(r)
	if err := p.chain.Insert(block); err != nil {
		return m, fmt.Errorf("replace: %w", err)
	}
	return m, nil
}

// Mismatch is the first place where a sealed block departs from the pre-confirmations of its
// number.
type Mismatch struct {
	// Index is the position of the first pre-confirmed transaction that the sealed block does
	// not carry as pre-confirmed.
	Index int
	// Preconfirmed is the pre-confirmed transaction at Index.
	Preconfirmed common.Hash
	// Sealed is the sealed block's transaction at Index; the zero hash when the block has
	// fewer transactions.
	Sealed common.Hash
	// Reason says what differs: the transaction, or its receipt's status, cumulative gas
	// used or logs.
	Reason string
}

// firstMismatch compares the pre-confirmed transactions and receipts of pre with the start of
// the sealed block and its receipts (execErr: they could not be computed); nil when the block
// begins with them all, unchanged.
func firstMismatch(pre *Snapshot, sealed *types.Block, receipts types.Receipts, execErr error) *Mismatch {
	if pre == nil {
		return nil
	}
	preTxs, txs := pre.Block.Transactions(), sealed.Transactions()
	for i, tx := range preTxs {
		m := &Mismatch{Index: i, Preconfirmed: tx.Hash()}
		if i < len(txs) {
			m.Sealed = txs[i].Hash()
		}
		switch {
		case i >= len(txs):
			m.Reason = "the sealed block ends before it"
		case txs[i].Hash() != tx.Hash():
			m.Reason = "another transaction"
		case execErr != nil:
			m.Reason = fmt.Sprintf("the sealed block does not execute: %v", execErr)
		case i >= len(receipts):
			m.Reason = "no receipt"
		case receipts[i].Status != pre.Receipts[i].Status:
			m.Reason = fmt.Sprintf("status %d, pre-confirmed %d", receipts[i].Status, pre.Receipts[i].Status)
		case receipts[i].CumulativeGasUsed != pre.Receipts[i].CumulativeGasUsed:
			m.Reason = fmt.Sprintf("cumulative gas used %d, pre-confirmed %d", receipts[i].CumulativeGasUsed, pre.Receipts[i].CumulativeGasUsed)
		case !sameLogs(receipts[i].Logs, pre.Receipts[i].Logs):
			m.Reason = "other logs"
		default:
			continue
		}
		return m
	}
	return nil
}

// sameLogs reports whether a and b are the same logs, by position and content.
func sameLogs(a, b []*types.Log) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if logKey(a[i]) != logKey(b[i]) {
			return false
		}
	}
	return true
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
