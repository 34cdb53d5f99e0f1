package preconf

import (
	"context"
	"fmt"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/consensus/misc/eip1559"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/flashrpc/flashrpc/internal/impersonation"
)

// Dev is the dev chain's control of the block in progress, beside what a producer does with
// Open, Batch.Commit and Seal: the state cheats (Cheat: anvil_setBalance and friends), a
// rebuild with other attributes (Rebuild: a new timestamp, base fee, fee recipient…), a rewind
// of the chain (Rewind: evm_revert, anvil_reset) and a seal with chosen transactions
// (SealWith: dev_seal). They change the block in progress outside its transactions: a block
// whose state was changed, or whose base fee is not the one the protocol derives, cannot be
// executed again from its transactions, so Seal writes it as executed and says so
// (chain.Chain.WriteCheated) instead of inserting it. Only the dev sequencer
// (internal/sequencer, devcontrol.go) uses a Dev: a replica's block in progress is what its
// upstream published. A Dev is safe for concurrent use: each method takes the Preconf's writer
// lock.
type Dev struct {
	p *Preconf
}

// Dev returns the dev chain's controls of p's block in progress.
func (p *Preconf) Dev() *Dev { return &Dev{p: p} }

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

// write writes block, sealed from w, into the chain as executed: a cheated block as such
// (chain.Chain.WriteCheated), whose state the path scheme must then write to disk, since it
// cannot be executed again after kill -9.
func (w *work) write(block *types.Block, receipts types.Receipts, st *state.StateDB) error {
	if w.cheated() {
		return w.chain.WriteCheated(block, receipts, st)
	}
	return w.chain.WriteExecuted(block, receipts, st)
}

// Cheats are state changes made outside any transaction (the dev chain's anvil_setBalance and
// friends), in the order they were made. Each only sets a value (a balance, a nonce, code, a
// slot), so applying them again gives the same state. Immutable once made; nil is none.
type Cheats struct {
	fns []func(*state.StateDB)
}

// Len returns how many changes c holds.
func (c *Cheats) Len() int {
	if c == nil {
		return 0
	}
	return len(c.fns)
}

// Apply makes the changes on st, in order.
func (c *Cheats) Apply(st *state.StateDB) {
	if c == nil {
		return
	}
	for _, fn := range c.fns {
		fn(st)
		st.Finalise(false) // keep an account that has only storage
	}
}

// unsealedCheats are the cheats no sealed block carries yet, on top of the sealed block base.
type unsealedCheats struct {
	base   common.Hash
	cheats *Cheats
}

// unsealedOn returns the unsealed cheats when they are on top of head, else nil. p.mu or
// p.viewMu must be held.
func (p *Preconf) unsealedOn(head *types.Header) *Cheats {
	if u := p.unsealed; u != nil && u.base == head.Hash() {
		return u.cheats
	}
	return nil
}

// setUnsealed replaces the unsealed cheats. p.mu must be held.
func (p *Preconf) setUnsealed(u *unsealedCheats) {
	p.viewMu.Lock()
	p.unsealed = u
	p.viewMu.Unlock()
}

// Cheat changes the state of the block in progress after its last pre-confirmed transaction
// with fn and publishes the result as the next pre-confirmation: `pending` sees the change at
// once, `latest` too (View.Cheats: the sealed head's state with the unsealed cheats applied),
// and the sealed block carries it. fn must only set values (Cheats).
//
// Why an overlay of `latest` rather than a block of its own per cheat: a suite that sets code
// or a balance and then counts blocks or compares timestamps expects no block to appear, as
// none does on anvil or Hardhat; and the sealed chain stays what its blocks say, since the
// cheats reach it only inside the next sealed block (written as executed).
func (d *Dev) Cheat(ctx context.Context, fn func(*state.StateDB)) (*Snapshot, error) {
	p := d.p
	p.mu.Lock()
	defer p.mu.Unlock()
	// The cheats sit on top of the sealed head: the block being written must be it first.
	if err := p.settleLocked(true); err != nil {
		return nil, err
	}
	w := p.work
	if w == nil {
		return nil, ErrNoBlock
	}
	w.cheat(fn)
	var fns []func(*state.StateDB)
	if old := p.unsealedOn(w.parent); old != nil {
		fns = append(fns, old.fns...)
	}
	fns = append(fns, fn)
	p.setUnsealed(&unsealedCheats{base: w.parent.Hash(), cheats: &Cheats{fns: fns}}) // published with the pre-confirmation below
	return p.publishLocked(ctx, len(w.txs), PublishOptions{})
}

// Cheats returns the cheats no sealed block carries yet, in order: what evm_snapshot saves
// besides the sealed head.
func (d *Dev) Cheats() (*Cheats, error) {
	p := d.p
	p.mu.Lock()
	defer p.mu.Unlock()
	if err := p.settleLocked(true); err != nil {
		return nil, err
	}
	return p.unsealedOn(p.chain.Head()), nil
}

// Attributes returns the attributes the block in progress was opened with; ok is false when
// no block is in progress. The transactions slice is shared: copy it to change it.
func (d *Dev) Attributes() (attrs Attributes, ok bool) {
	p := d.p
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
func (d *Dev) Rebuild(ctx context.Context, attrs Attributes) (*Snapshot, []*types.Transaction, error) {
	p := d.p
	p.mu.Lock()
	defer p.mu.Unlock()
	// The View it publishes on the way has no block in progress: with the parent still being
	// written it would show Sealing without the Pending built on it (view.go), so it settles
	// the chain's write first, whatever its callers did.
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
	p.discardLocked()
	p.retractLocked(dropRetraction(old))
	p.work = fresh
	snap, err := p.publishLocked(ctx, 0, PublishOptions{})
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

// Rewind abandons the block in progress, its pre-confirmed logs retracted to the OnRetract
// listeners (a Retraction without Block), and takes the chain back to block number
// (chain.Chain.Rewind: the dropped blocks' logs reach the chain's listeners as removed).
// cheats become the unsealed cheats on top of it (evm_revert restores those its snapshot
// saved): `latest` sees them in the View that has the rewound head, and the next Open applies
// them to the block it opens. `pending` means the sealed head until then.
func (d *Dev) Rewind(number uint64, cheats *Cheats) error {
	p := d.p
	p.mu.Lock()
	defer p.mu.Unlock()
	d.dropLocked()
	var u *unsealedCheats
	if cheats.Len() > 0 {
		u = &unsealedCheats{base: p.chain.CanonicalHash(number), cheats: cheats}
	}
	p.setUnsealed(u)
	return p.chain.Rewind(number)
}

// dropLocked abandons the block in progress: its pre-confirmed logs are retracted to the
// OnRetract listeners and `pending` means the sealed head. p.mu must be held.
func (d *Dev) dropLocked() {
	p := d.p
	p.settleLocked(true) // `pending` becomes the sealed head: the last sealed block, written
	w, last := p.work, p.last
	p.discardLocked()
	if w != nil {
		p.retractLocked(dropRetraction(last))
	}
}

// SealWith seals the block in progress with its opening transactions (Attributes.Transactions)
// followed by txs, in this order, instead of everything that was pre-confirmed. When txs are
// the pre-confirmed transactions after the opening ones, in pre-confirmation order, it is
// Seal. Otherwise the block is built again on the parent's state from the block's attributes:
// the pre-confirmed state and receipts are discarded, a transaction that no longer applies
// (for example a nonce left behind by a dropped one) is left out, and the retraction is
// published to OnRetract listeners. Pre-confirmed transactions that end up outside the block
// are gone: they are not returned to any pool.
//
// The dev sequencer uses it for dev_seal with a chosen transaction list, which is how tests
// exercise retraction; a sequencer never needs it otherwise.
func (d *Dev) SealWith(ctx context.Context, txs []*types.Transaction) (*types.Block, error) {
	p := d.p
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.work == nil {
		return nil, ErrNoBlock
	}
	if err := p.settleLocked(true); err != nil { // the parent must be written first
		return nil, err
	}
	w := p.work
	if sameHashes(w.txs[len(w.attrs.Transactions):], txs) {
		return p.sealLocked(ctx)
	}
	fresh, err := openWork(ctx, p.chain, w.parent, w.attrs)
	if err == nil {
		err = fresh.applyOpening(ctx)
	}
	if err != nil {
		return nil, fmt.Errorf("seal block %d: %w", w.header.Number.Uint64(), err)
	}
	// The unsealed cheats come first, as `latest` showed them: on the parent's state.
	for _, c := range w.cheats {
		fresh.cheat(c.fn)
	}
	for _, tx := range txs {
		fresh.apply(ctx, tx) // a transaction that fails is left out, and retracted
	}
	block, err := fresh.assemble(ctx, fresh.state)
	if err == nil {
		// What publishLocked derives for a pre-confirmation: the block is written with its
		// receipts as they are (chain.WriteExecuted).
		err = fresh.deriveL1Fields(0)
	}
	if err != nil {
		return nil, fmt.Errorf("seal block %d: %w", w.header.Number.Uint64(), err)
	}
	r := retraction(p.last, block, fresh.receipts)
	p.discardLocked() // the deliberate exception: the block in progress is gone until the write
	p.retractLocked(r)
	if err := fresh.write(block, fresh.receipts, fresh.state); err != nil {
		return nil, fmt.Errorf("seal: %w", err)
	}
	if p.unsealed != nil {
		p.setUnsealed(nil) // the block carries them
	}
	return block, nil
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
