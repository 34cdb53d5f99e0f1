package preconf

import (
	"context"
	"fmt"

	"github.com/ethereum/go-ethereum/consensus/misc/eip1559"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/flashrpc/flashrpc/internal/impersonation"
)

// The dev chain's cheats (internal/devapi, through the sequencer) change the block in
// progress outside its transactions: Cheat changes its state at the current point (anvil_setBalance
// and friends), Rebuild builds it again with other attributes (a new timestamp or base fee),
// re-executing its transactions (published again from pre-confirmation 0, as its attributes
// changed), and Drop abandons it (evm_revert). A block whose state was
// changed, or whose base fee is not the one the protocol derives, cannot be executed again
// from its transactions: Seal writes it as executed (chain.Chain.WriteExecuted) instead of
// inserting it.

// stateCheat is a state change made before the block's transaction at position at.
type stateCheat struct {
	at int
	fn func(*state.StateDB)
}

// cheated reports whether the block can only be written as executed.
func (w *work) cheated() bool {
	if len(w.cheats) > 0 || w.unreplay || w.header.GasLimit != w.parent.GasLimit {
		return true // the protocol bounds a gas limit change, and the dev chain never makes one itself
	}
	if w.header.BaseFee == nil {
		return false
	}
	want := eip1559.CalcBaseFee(w.config, w.parent, w.header.Time)
	return want == nil || want.Cmp(w.header.BaseFee) != 0
}

// Cheat changes the state of the block in progress after its last pre-confirmed transaction
// with fn and publishes the result as the next pre-confirmation: `pending` sees the change at
// once, the sealed block carries it. fn must only change state.
func (p *Preconf) Cheat(ctx context.Context, fn func(*state.StateDB)) (*Snapshot, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	w := p.work
	if w == nil {
		return nil, ErrNoBlock
	}
	fn(w.state)
	w.state.Finalise(false) // keep an account that has only storage
	w.cheats = append(w.cheats, stateCheat{at: len(w.txs), fn: fn})
	return p.publishLocked(ctx, len(w.txs))
}

// Attributes returns the attributes the block in progress was opened with; ok is false when
// no block is in progress. The transactions slice is shared: copy it to change it.
func (p *Preconf) Attributes() (attrs Attributes, ok bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.work == nil {
		return Attributes{}, false
	}
	return p.work.attrs, true
}

// Rebuild builds the block in progress again on the same parent with attrs (its opening
// transactions applied first), then its state cheats and pre-confirmed transactions in their
// order, and publishes it from pre-confirmation 0 (its attributes changed). A transaction
// that no longer applies is left out. As in a reorg, every pre-confirmed log of the old block
// is retracted to the OnRetract listeners (a Retraction without Block) and the rebuilt block's
// logs are published again as new, so a result that depends on the timestamp reaches
// subscribers as its old log removed and its new one added. It returns the new snapshot and
// the transactions left out.
func (p *Preconf) Rebuild(ctx context.Context, attrs Attributes) (*Snapshot, []*types.Transaction, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	// The View it publishes on the way has no block in progress: with the parent still being
	// written it would show Sealing without the Pending built on it (view.go). Its callers
	// settle first today; settle here too, so it never depends on them.
	if err := p.settleLocked(true); err != nil {
		return nil, nil, err
	}
	w := p.work
	if w == nil {
		return nil, nil, ErrNoBlock
	}
	if attrs.ParentHash != w.attrs.ParentHash {
		return nil, nil, fmt.Errorf("%w: rebuild of block %d on %s", ErrParentNotHead, attrs.Number, attrs.ParentHash.TerminalString())
	}
	fresh, err := openWork(ctx, p.chain, w.parent, attrs)
	if err == nil {
		err = fresh.applyOpening(ctx)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("rebuild block %d: %w", attrs.Number, err)
	}
	var dropped []*types.Transaction
	cheats := w.cheats
	for i, tx := range w.txs {
		for len(cheats) > 0 && cheats[0].at <= i {
			fresh.cheat(cheats[0].fn)
			cheats = cheats[1:]
		}
		if i < len(w.attrs.Transactions) {
			continue // the old opening transactions: attrs brings the new ones
		}
		if err := fresh.apply(ctx, tx); err != nil {
			dropped = append(dropped, tx)
		}
	}
	for _, c := range cheats {
		fresh.cheat(c.fn)
	}
	// As in a reorg: every pre-confirmed log is retracted, with a View without the block in
	// progress published first, then the rebuilt block is published from index 0 (it has a
	// new base), so its logs are sent again as new.
	old := p.last
	p.work, p.last = nil, nil
	p.publishView(nil)
	if r := dropRetraction(old); r != nil {
		for _, fn := range p.retracts {
			fn(r)
		}
	}
	p.work = fresh
	snap, err := p.publishLocked(ctx, 0)
	if err != nil {
		return nil, nil, err
	}
	return snap, dropped, nil
}

// cheat applies a state cheat at the current point of w.
func (w *work) cheat(fn func(*state.StateDB)) {
	fn(w.state)
	w.state.Finalise(false) // keep an account that has only storage
	w.cheats = append(w.cheats, stateCheat{at: len(w.txs), fn: fn})
}

// Drop abandons the block in progress: its pre-confirmed logs are retracted to the OnRetract
// listeners (a Retraction without Block) and `pending` means the sealed head until the next
// Open. It returns the transactions that were pre-confirmed, opening ones included.
func (p *Preconf) Drop() []*types.Transaction {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.settleLocked(true) // `pending` becomes the sealed head: the last sealed block, written
	w, last := p.work, p.last
	p.work, p.last = nil, nil
	p.publishView(nil)
	if w == nil {
		return nil
	}
	if r := dropRetraction(last); r != nil {
		for _, fn := range p.retracts {
			fn(r)
		}
	}
	return w.txs
}

// dropRetraction retracts every log and transaction of a pre-confirmation; nil for none.
func dropRetraction(last *Snapshot) *Retraction {
	if last == nil {
		return nil
	}
	r := &Retraction{}
	for _, l := range last.Logs() {
		cp := *l
		cp.Removed = true
		r.Removed = append(r.Removed, &cp)
	}
	for _, tx := range last.Block.Transactions() {
		r.Dropped = append(r.Dropped, tx.Hash())
	}
	return r
}

// impersonatedContract lets the dev chain's impersonated transaction from an account with code
// (a contract, impersonated as anvil and Hardhat allow) past the sender-is-not-a-contract check
// (EIP-3607) by skipping go-ethereum's transaction checks for it; the block can then only be
// written as executed. Only on a chain opened with Impersonation (the dev chain): elsewhere a
// transaction shaped like one is refused as usual.
func (w *work) impersonatedContract(tx *types.Transaction, msg *core.Message) {
	if !w.chain.Impersonation() {
		return
	}
	if from, ok := impersonation.Placeholder(tx); !ok || from != msg.From {
		return
	}
	code := w.state.GetCode(msg.From)
	if _, delegated := types.ParseDelegation(code); len(code) == 0 || delegated {
		return
	}
	msg.SkipTransactionChecks = true
	w.unreplay = true
}
