package preconf

import (
	"context"
	"fmt"
	"runtime/pprof"

	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/flashrpc/flashrpc/internal/chain"
)

// Sealing off the writer's lock (doc.go, "Sealing while pre-confirming"). SealAsync commits the
// sealed block's state, which makes it readable at the block's root, and hands the rest of the
// chain write (block and receipts, trie flush, head, fsync, listeners; a block sealed with its
// publication has its block, receipts and trie flush stored by then, or under way, as a
// background job: storeSealing) to a goroutine: the
// next block opens on the committed state at once and pre-confirms while its parent is being
// written (the chain's context knows the parent's header meanwhile, for BLOCKHASH). One write
// is in flight at most: the next seal, and every operation that needs the chain's head to be
// the sealed block, waits for it first (settleLocked).

// sealWrite is the chain write of a sealed block, running on its own goroutine.
type sealWrite struct {
	block *types.Block  // the sealed block
	head  *types.Header // its header: the next block's parent
	last  *Snapshot     // the block's last pre-confirmation, retracted if the write fails
	done  chan struct{} // closed when the write has ended
	err   error         // the write's error, set before done is closed
	// stored, when not nil, is closed when the block's early store (storeSealing) ends; the
	// write waits for it, through chain.Executed.Write, or here when it fails before.
	stored chan struct{}
}

// SealAsync seals the block in progress as Seal does, but returns once the sealed block's
// state is committed: the chain writes the block on another goroutine, and its sealed part
// reaches the View, the chain's Heads and its listeners when it is durable. Until then Head
// returns it, Open builds on it, and the View carries it as Sealing, between Latest and
// Pending. WaitWritten waits for the write; the next SealAsync (or Seal) waits for it before
// it seals, so a writer that falls a whole block behind slows the sealing instead of queueing.
//
// A block whose last pre-confirmation is not the block sealed (the state cheated since, as
// dev.go does) and a fork's block are written before SealAsync returns, as Seal does.
func (p *Preconf) SealAsync(ctx context.Context) (*types.Block, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.work == nil {
		return nil, ErrNoBlock
	}
	if err := p.settleLocked(true); err != nil {
		return nil, err
	}
	return p.sealAsyncLocked(ctx)
}

// sealAsyncLocked is SealAsync once the last chain write has settled. p.mu must be held.
func (p *Preconf) sealAsyncLocked(ctx context.Context) (*types.Block, error) {
	w, last := p.work, p.last
	block := w.assembled.block
	if last == nil || block == nil || last.Block != block || w.assembled.txs != len(w.txs) || w.cheated() {
		return p.sealLocked(ctx)
	}
	e, err := p.chain.CommitExecuted(block, w.receipts, w.assembled.state)
	if err != nil {
		return nil, fmt.Errorf("seal: %w", err)
	}
	p.writeAsyncLocked(e, last, nil)
	return block, nil
}

// commitForSealLocked commits the state of the block in progress, just assembled and not yet
// published, for PublishOptions.Seal, once the last chain write has settled, as SealAsync
// waits for it. It returns nil when the block is to be sealed after its publication
// (sealAsyncLocked: a cheated block, written as such, and a chain with an upstream, whose
// CommitExecuted writes the whole block). A failed commit, which consumed the block's state,
// drops the block in progress as a failed chain write does: its pre-confirmations are
// retracted and its transactions kept for TakeDropped. p.mu must be held.
func (p *Preconf) commitForSealLocked() (*chain.Executed, error) {
	if err := p.settleLocked(true); err != nil {
		return nil, err // the block in progress went with its parent (settleLocked)
	}
	if !p.commitsForSealLocked() {
		return nil, nil
	}
	w := p.work
	e, err := p.chain.CommitExecuted(w.assembled.block, w.receipts, w.assembled.state)
	if err != nil {
		p.dropCommittedLocked()
		return nil, fmt.Errorf("seal: %w", err)
	}
	return e, nil
}

// commitsForSealLocked reports whether commitForSealLocked commits the block in progress
// before its publication: not a cheated block, nor on a chain with an upstream. p.mu must be
// held.
func (p *Preconf) commitsForSealLocked() bool {
	return !p.work.cheated() && p.chain.Upstream() == nil
}

// committedStateLocked opens the state commitForSealLocked committed for block, for the
// readers of its last pre-confirmation. Failing to, the block is dropped as by a failed
// commit: its state is in the trie database but unreadable. p.mu must be held.
func (p *Preconf) committedStateLocked(block *types.Block) (*state.StateDB, error) {
	var st *state.StateDB
	var err error
	if hook := testHookOpenCommitted; hook != nil {
		err = hook(block)
	}
	if err == nil {
		st, err = p.chain.StateAt(block.Header())
	}
	if err != nil {
		p.dropCommittedLocked()
		return nil, fmt.Errorf("seal: open the committed state: %w", err)
	}
	return st, nil
}

// dropCommittedLocked drops the block in progress after its early commit failed, as a failed
// chain write does: its pre-confirmations are retracted and its transactions kept for
// TakeDropped. p.mu must be held.
func (p *Preconf) dropCommittedLocked() {
	p.dropped = appendUserTxs(p.dropped, p.work.txs)
	p.retractLocked(dropRetraction(p.last))
	p.discardLocked()
}

// writeAsyncLocked hands the chain write of the block e committed, whose last
// pre-confirmation is last, to another goroutine, and ends the block in progress. stored, when
// not nil, is closed when the block's early store ends. p.mu must be held.
func (p *Preconf) writeAsyncLocked(e *chain.Executed, last *Snapshot, stored chan struct{}) {
	block := e.Block()
	sw := &sealWrite{block: block, head: block.Header(), last: last, done: make(chan struct{}), stored: stored}
	p.write = sw
	p.work, p.last = nil, nil
	// The View keeps the block as its Pending until the next Open (Sealing beside the next
	// block's Pending) or until it is durable (Latest), whichever comes first.
	p.viewMu.Lock()
	p.sealing = last
	p.viewMu.Unlock()
	go p.writeSealed(sw, e)
}

// writeSealed runs the chain write of a sealed block: the chain publishes its Heads, and
// onHeads the View with the block sealed, before its listeners hear of it.
func (p *Preconf) writeSealed(sw *sealWrite, e *chain.Executed) {
	// Not the labels of the writer that started it (a sequencer labels its builds for CPU
	// profiles): the write runs beside the next block's builds.
	pprof.SetGoroutineLabels(pprof.WithLabels(context.Background(), pprof.Labels("chain", "write")))
	if hook := testHookBeforeWrite; hook != nil {
		if sw.err = hook(e.Block()); sw.err != nil && sw.stored != nil {
			<-sw.stored // an early store ends before the write does
		}
	}
	if sw.err == nil {
		sw.err = e.Write()
	}
	if sw.err != nil {
		// The block is not in the chain: drop it, and the block in progress that builds on
		// it, from the View (settleLocked discards that block for the writer).
		p.viewMu.Lock()
		p.sealing = nil
		p.publishViewLocked(nil)
		p.viewMu.Unlock()
	}
	close(sw.done)
}

// storeSealing stores a block committed before its publication (chain.Executed.Store) as one
// of the process's background jobs, on the goroutine that calls it, and closes stored. Its
// error is Write's, which waits for it.
func storeSealing(e *chain.Executed, stored chan struct{}) {
	defer close(stored)
	pprof.SetGoroutineLabels(pprof.WithLabels(context.Background(), pprof.Labels("chain", "write")))
	e.StoreInBackground()
}

// testHookOpenCommitted, when set (tests only), runs before committedStateLocked opens a
// committed state; its error is taken for the opening's.
var testHookOpenCommitted func(*types.Block) error

// testHookBeforeWrite, when set (tests only), runs on the writing goroutine before the chain
// write of each block SealAsync sealed; an error it returns fails the write instead.
var testHookBeforeWrite func(*types.Block) error

// WaitWritten waits for the chain write of the block SealAsync sealed last, if one is in flight,
// and returns its error: afterwards the chain's head is the last sealed block.
func (p *Preconf) WaitWritten() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.settleLocked(true)
}

// settleLocked ends the bookkeeping of a finished chain write: when wait is set it waits for a
// write in flight, otherwise it leaves one that has not finished. A failed write discards
// the block in progress, which builds on the block that was not written, retracts both blocks'
// pre-confirmations to the OnRetract listeners (their transactions are pre-confirmed again
// later, so a log subscriber sees each log removed before it sees it again), keeps both
// blocks' transactions for TakeDropped (dropped.go) and returns the write's error. p.mu must
// be held.
func (p *Preconf) settleLocked(wait bool) error {
	sw := p.write
	if sw == nil {
		return nil
	}
	if wait {
		<-sw.done
	} else {
		select {
		case <-sw.done:
		default:
			return nil
		}
	}
	p.write = nil
	if sw.err != nil {
		p.keepDroppedLocked(sw)
		p.retractLocked(dropRetraction(sw.last))
		if p.work != nil && p.work.parent.Hash() == sw.head.Hash() {
			p.retractLocked(dropRetraction(p.last))
		}
		p.work, p.last = nil, nil
		p.publishView(nil)
		return fmt.Errorf("write of sealed block %d: %w", sw.head.Number.Uint64(), sw.err)
	}
	return nil
}

// Head returns the block the next block builds on: the block SealAsync sealed last while the
// chain writes it, otherwise the chain's head.
func (p *Preconf) Head() *types.Header {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.headLocked()
}

// headLocked is Head; p.mu must be held.
func (p *Preconf) headLocked() *types.Header {
	if p.settleLocked(false) == nil && p.write != nil {
		return p.write.head
	}
	return p.chain.Head()
}
