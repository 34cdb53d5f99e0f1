package preconf

import (
	"context"
	"errors"
	"fmt"

	"github.com/ethereum/go-ethereum/core/types"
)

// A writer that pre-confirms what someone else built (a replica following a remote feed)
// must publish only what it has verified: OpenChecked and CommitChecked hand each partial
// block to a check before any reader, listener or View can see it. A block that fails its
// check is discarded whole, and `pending` falls back to the sealed head until the next Open.

// ErrCheckFailed wraps the error of a check that refused a pre-confirmation.
var ErrCheckFailed = errors.New("pre-confirmation refused")

// OpenChecked is Open with check run on pre-confirmation 0's partial block before it is
// published. When check fails nothing is published and no block is in progress.
func (p *Preconf) OpenChecked(ctx context.Context, attrs Attributes, check func(*types.Block) error) (*Snapshot, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.work != nil {
		return nil, ErrBlockOpen
	}
	parent := p.chain.Head()
	if parent.Hash() != attrs.ParentHash {
		return nil, fmt.Errorf("%w: block %d builds on %s, head is %s", ErrParentNotHead, attrs.Number, attrs.ParentHash.TerminalString(), parent.Hash().TerminalString())
	}
	w, err := openWork(ctx, p.chain, parent, attrs)
	if err != nil {
		return nil, fmt.Errorf("open block %d: %w", attrs.Number, err)
	}
	if err := w.applyOpening(ctx); err != nil {
		return nil, fmt.Errorf("open block %d: %w", attrs.Number, err)
	}
	p.work = w
	snap, err := p.publishCheckedLocked(ctx, 0, checked(check))
	if err != nil {
		p.discardLocked()
	}
	return snap, err
}

// CommitChecked is Commit with check run on the partial block before it is published. When
// check (or the assembly) fails, nothing is published and the whole block in progress is
// discarded: its state holds the batch's transactions. The writer lock is released either way.
func (b *Batch) CommitChecked(ctx context.Context, check func(*types.Block) error) (*Snapshot, error) {
	if b.done {
		return nil, errors.New("preconf: batch already finished")
	}
	b.done = true
	defer b.p.mu.Unlock()
	snap, err := b.p.publishCheckedLocked(ctx, b.first, checked(check))
	if err != nil {
		b.p.discardLocked()
	}
	return snap, err
}

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

// checked wraps check's error in ErrCheckFailed.
func checked(check func(*types.Block) error) func(*types.Block) error {
	if check == nil {
		return nil
	}
	return func(b *types.Block) error {
		if err := check(b); err != nil {
			return fmt.Errorf("%w: block %d: %w", ErrCheckFailed, b.NumberU64(), err)
		}
		return nil
	}
}
