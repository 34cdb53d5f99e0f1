package preconf

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math/big"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/consensus/misc/eip1559"
	"github.com/ethereum/go-ethereum/consensus/misc/eip4844"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/params"

	"github.com/flashrpc/flashrpc/internal/chain"
	"github.com/flashrpc/flashrpc/internal/oprollup"
)

// Errors of the block-in-progress life cycle.
var (
	ErrNoBlock       = errors.New("preconf: no block in progress")
	ErrBlockOpen     = errors.New("preconf: a block is already in progress")
	ErrParentNotHead = errors.New("preconf: parent is not the sealed head")
	// ErrStateUnavailable wraps a failure to read the state a transaction needs (a fork's
	// upstream that did not answer): the transaction is not included now and may be later.
	ErrStateUnavailable = errors.New("preconf: state unavailable")
	// ErrSealFailed wraps the failure of a seal that came after its pre-confirmation was
	// published (PublishOptions.Seal).
	ErrSealFailed = errors.New("preconf: published, not sealed")
)

// Attributes are the fixed header fields of a block, known when it opens (the flashblocks
// "base"), and the transactions it opens with.
type Attributes struct {
	ParentHash       common.Hash
	Number           uint64
	Time             uint64
	GasLimit         uint64
	FeeRecipient     common.Address
	PrevRandao       common.Hash
	ExtraData        []byte
	BaseFee          *big.Int
	ParentBeaconRoot common.Hash
	// Transactions open the block, in pre-confirmation 0: on an OP Stack chain the
	// L1-attributes deposit and the user deposits. They cannot be left out of it: Open fails
	// when one does not apply, and Dev.SealWith keeps them.
	Transactions []*types.Transaction
}

// NextAttributes returns the attributes of a block following parent at time, with the base fee
// and gas limit the protocol derives from the parent.
func NextAttributes(config *params.ChainConfig, parent *types.Header, time uint64, feeRecipient common.Address, extra []byte) Attributes {
	return Attributes{
		ParentHash:   parent.Hash(),
		Number:       parent.Number.Uint64() + 1,
		Time:         time,
		GasLimit:     parent.GasLimit,
		FeeRecipient: feeRecipient,
		ExtraData:    extra,
		BaseFee:      eip1559.CalcBaseFee(config, parent, time),
	}
}

// Preconf holds the block in progress. It is safe for concurrent use.
//
// Locks: mu serialises the writers; viewMu serialises the publications of the View, which
// come from the writer (pre-confirmations, retraction) and from the chain (onHeads, on the
// goroutine that changed the chain, which is the writer's own while it seals). The order is
// mu, then the chain's publication lock, then viewMu.
type Preconf struct {
	chain  *chain.Chain
	config *params.ChainConfig

	view    atomic.Pointer[View] // never nil; view.go
	viewMu  sync.Mutex           // serialises the stores to view; guards sealing
	sealing *Snapshot            // the block SealAsync sealed, until it is durable (sealasync.go)
	// unsealed are the dev chain's state cheats no sealed block carries yet, on top of the
	// sealed block they were made on (dev.go); nil on every other chain. Changed under mu
	// and viewMu, read under either.
	unsealed *unsealedCheats
	// hidden is set while the writer keeps its blocks in progress from readers (a chain
	// without pre-confirmations, hidden.go): the PublishOptions.Hidden of the last Open.
	// Changed under mu and viewMu, read under either.
	hidden bool

	mu        sync.Mutex // serialises writers; guards the fields below
	work      *work      // the mutable block in progress; nil between blocks
	last      *Snapshot  // the newest snapshot of work; nil between blocks
	write     *sealWrite // the chain write of the block SealAsync sealed last; nil when settled
	listeners []func(*Snapshot)
	retracts  []func(*Retraction)

	// dropped are the transactions of the blocks a failed chain write dropped, until
	// TakeDropped (dropped.go). Guarded by mu.
	dropped []*types.Transaction
}

// New returns a Preconf building on c's head. It publishes c's Heads as its first View and
// follows the chain's changes from then on (chain.Chain.OnHeads).
func New(c *chain.Chain) *Preconf {
	p := &Preconf{chain: c, config: c.Config()}
	p.publishView(nil)
	c.OnHeads(p.onHeads)
	return p
}

// Current returns the newest published snapshot, or nil when no block is in progress (then
// `pending` means the sealed head) or the writer hides it (View.Hidden): the Pending of the
// newest View that readers may show. A reader that also needs the sealed head loads the View
// instead, once.
func (p *Preconf) Current() *Snapshot {
	if v := p.view.Load(); !v.Hidden {
		return v.Pending
	}
	return nil
}

// OnSnapshot registers fn to run after every published snapshot, on the writer's goroutine. fn
// must return quickly.
func (p *Preconf) OnSnapshot(fn func(*Snapshot)) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.listeners = append(p.listeners, fn)
}

// PublishOptions say how Open and Batch.Commit publish a pre-confirmation: what a producer
// differs in. The zero value computes the whole partial block, checks nothing and publishes as
// soon as it is assembled, as the dev sequencer does.
type PublishOptions struct {
	// Check, when set, sees the partial block before any reader, listener or View does: a
	// writer that publishes what someone else built (a replica following a remote feed)
	// compares it with what was published there (verify.go). An error it returns is wrapped
	// in ErrCheckFailed and nothing is published. With a Check, a publication that fails (the
	// check or the assembly) discards the whole block in progress, whose state holds the
	// refused transactions: `pending` falls back to the sealed head until the next Open.
	// Without one, a failed publication leaves the block in progress as it was.
	Check func(*types.Block) error
	// Roots, when set, are the roots the partial block takes instead of computing them: a
	// replica that executes on state it cannot compute a root for (given.go). Nil computes
	// them.
	Roots *Roots
	// PublishAfter, when set, runs between assembling the partial block and publishing it:
	// the snapshot reaches the View, the OnSnapshot listeners (the feed) and
	// Snapshot.Published when it returns. A writer that publishes on a schedule (the dev
	// sequencer's deadlines) assembles ahead and waits there for the publication time. The
	// writer lock stays held while it runs; readers do not wait for it. Nil publishes at once.
	PublishAfter func()
	// Hidden, given to Open, keeps the block in progress from readers until it is sealed: a
	// chain without pre-confirmations (hidden.go). Open decides for the whole block: its
	// later publications (Batch.Commit, the Dev's cheats and rebuilds) and its seal are
	// hidden or not as it was opened, whatever their own options say.
	Hidden bool
	// Seal, given to Batch.Commit for a block's last pre-confirmation, seals the block with
	// it as SealAsync would right after: the block's state is committed between the assembly
	// and PublishAfter, so that the commit runs while a scheduled writer waits for the
	// deadline and the next block can open as soon as the pre-confirmation is published.
	// A cheated block and a chain with an upstream are sealed right after the publication,
	// as SealAsync seals them. Commit returns the published snapshot, whose block is the
	// sealed one. An error with a nil snapshot says nothing was published or sealed; with a
	// snapshot, that it was published and the seal failed (ErrSealFailed): the block stays
	// in progress.
	Seal bool
}

// Open starts a block with attrs on top of the sealed head and publishes pre-confirmation 0, as
// opts say: the header fields, the protocol's pre-execution system calls and
// attrs.Transactions.
func (p *Preconf) Open(ctx context.Context, attrs Attributes, opts PublishOptions) (*Snapshot, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.work != nil {
		return nil, ErrBlockOpen
	}
	parent := p.headLocked() // the block SealAsync sealed, while the chain writes it
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
	if c := p.unsealedOn(parent); c != nil { // a dev chain's restored cheats (dev.go)
		for _, fn := range c.fns {
			w.cheat(fn)
		}
	}
	p.work = w
	p.setHidden(opts.Hidden)
	return p.publishLocked(ctx, 0, opts)
}

// Batch is one pre-confirmation being built: transactions are added one by one and published
// together by Commit. The Preconf's writer lock is held from Begin until Commit or Abort.
type Batch struct {
	p     *Preconf
	first int // position of the batch's first transaction
	done  bool
}

// Begin starts the next pre-confirmation of the block in progress.
func (p *Preconf) Begin() (*Batch, error) {
	p.mu.Lock()
	if err := p.settleLocked(false); err != nil { // the block in progress built on it is gone
		p.mu.Unlock()
		return nil, fmt.Errorf("%w: %w", ErrNoBlock, err)
	}
	if p.work == nil {
		p.mu.Unlock()
		return nil, ErrNoBlock
	}
	return &Batch{p: p, first: len(p.work.txs)}, nil
}

// Base returns the pre-confirmation the batch builds on: the newest one of the block in
// progress, whatever the View shows meanwhile.
func (b *Batch) Base() *Snapshot { return b.p.last }

// Add executes tx on the block in progress. When tx cannot be included (invalid for the state,
// or more gas than the block has left, or on an OP Stack chain more data-availability footprint
// than it has left) the state is left as it was and the error says why; errors.Is works with
// go-ethereum's core errors (core.ErrNonceTooLow, core.ErrGasLimitReached…) and
// ErrDAFootprintLimit.
func (b *Batch) Add(ctx context.Context, tx *types.Transaction) error {
	return b.p.work.apply(ctx, tx)
}

// GasUsed returns the gas the block in progress has used so far, the batch's transactions
// included.
func (b *Batch) GasUsed() uint64 { return b.p.work.gasPool.Used() }

// Commit publishes the batch as the next pre-confirmation, as opts say, even when it added
// nothing (an empty pre-confirmation still advances the index), and releases the writer lock.
func (b *Batch) Commit(ctx context.Context, opts PublishOptions) (*Snapshot, error) {
	if b.done {
		return nil, errors.New("preconf: batch already finished")
	}
	b.done = true
	defer b.p.mu.Unlock()
	// A writer that added over a while (the dev sequencer's staging) may hold a batch across
	// the failure of its parent's chain write: nothing is published on a dropped block.
	if err := b.p.settleLocked(false); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNoBlock, err)
	}
	return b.p.publishLocked(ctx, b.first, opts)
}

// Seal assembles the block in progress from everything committed, writes it into the chain
// with the state it was executed on (chain.WriteExecuted, or WriteCheated for a cheated one) and
// clears the block in progress: `pending` means the new head until the next Open. Transactions
// added by an uncommitted batch are not allowed (Seal waits for the writer lock). The block is
// durable when Seal returns; SealAsync (sealasync.go) leaves its write to another goroutine.
func (p *Preconf) Seal(ctx context.Context) (*types.Block, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.work == nil {
		return nil, ErrNoBlock
	}
	if err := p.settleLocked(true); err != nil {
		return nil, err
	}
	return p.sealLocked(ctx)
}

// sealLocked seals what was pre-confirmed, on the pre-confirmed state. p.mu must be held and a
// block be in progress.
func (p *Preconf) sealLocked(ctx context.Context) (*types.Block, error) {
	w := p.work
	// The last pre-confirmation assembled this very block on a copy of the state: when nothing
	// was added since, seal that block with that state instead of assembling it again (the
	// state root is most of the work). A dev-chain cheat changes the state outside any
	// transaction (dev.go): the block is assembled again on the changed state.
	block, st := w.assembled.block, w.assembled.state
	if block == nil || w.assembled.txs != len(w.txs) || w.cheated() {
		st = w.state
		var err error
		if block, err = w.assemble(ctx, st); err != nil {
			return nil, fmt.Errorf("seal block %d: %w", w.header.Number.Uint64(), err)
		}
	}
	// The block was executed here, pre-confirmation by pre-confirmation: the chain writes it
	// with this state and these receipts instead of executing it again. The write
	// publishes the chain's new Heads, and onHeads the View that has the block sealed and
	// nothing in progress, before it tells the chain's listeners.
	if err := w.write(block, w.receipts, st); err != nil {
		return nil, fmt.Errorf("seal: %w", err)
	}
	p.work, p.last = nil, nil
	if p.unsealed != nil {
		p.setUnsealed(nil) // the block carries them; the View that names it Latest left them out
	}
	return block, nil
}

// Discard drops the block in progress without sealing it.
func (p *Preconf) Discard() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.settleLocked(true) // a failed write discards too
	p.work, p.last = nil, nil
	p.publishView(nil)
}

// publishLocked computes the partial block and publishes it as a snapshot, as opts say: with
// opts.Roots in it, after opts.Check accepted it, once opts.PublishAfter returned. With a
// Check, a failure discards the block in progress. p.mu must be held.
func (p *Preconf) publishLocked(ctx context.Context, firstNew int, opts PublishOptions) (_ *Snapshot, err error) {
	start := time.Now()
	w := p.work
	w.given = opts.Roots
	published := false
	defer func() {
		w.given = nil
		if err != nil && opts.Check != nil && !published {
			p.discardLocked()
		}
	}()
	l1Fields := w.startL1Fields(firstNew) // opstack.go
	if err := w.updateTries(ctx); err != nil {
		return nil, fmt.Errorf("pre-confirm block %d: %w", w.header.Number.Uint64(), err)
	}
	roots := time.Since(start)
	// The snapshot's readers get their own copy of the state. The assembly needs one too
	// where it changes the state (assemblyChangesState); where it does not, it runs on the
	// writer's state itself once the readers' copy is taken, and the seal commits that state.
	// A publication that commits the block's state before it is published
	// (commitForSealLocked) takes no readers' copy: its readers open the committed state at
	// the block's root, which the copy of a whole block's state (14-18 ms at 10,000
	// transactions) would only have delayed.
	var readers, assembled *state.StateDB
	var block *types.Block
	switch {
	case w.assemblyChangesState():
		readersState := make(chan *state.StateDB, 1)
		go func() { readersState <- w.state.Copy() }()
		assembled = w.state.Copy()
		block, err = w.assemble(ctx, assembled)
		readers = <-readersState
	case opts.Seal && p.commitsForSealLocked():
		assembled = w.state
		block, err = w.assemble(ctx, assembled)
	default:
		readers, assembled = w.state.Copy(), w.state
		block, err = w.assemble(ctx, assembled)
	}
	l1Err := l1Fields()
	if err != nil {
		return nil, fmt.Errorf("pre-confirm block %d: %w", w.header.Number.Uint64(), err)
	}
	if opts.Check != nil {
		if err := opts.Check(block); err != nil {
			return nil, fmt.Errorf("%w: block %d: %w", ErrCheckFailed, block.NumberU64(), err)
		}
	}
	if l1Err != nil {
		// Its receipts would be written without their L1 fields: the block in progress goes.
		p.discardLocked()
		return nil, fmt.Errorf("pre-confirm block %d: %w", w.header.Number.Uint64(), l1Err)
	}
	// Accepted: what Seal writes when nothing is added since.
	w.assembled.txs, w.assembled.block, w.assembled.state = len(w.txs), block, assembled
	var sealing *chain.Executed // sealasync.go
	var stored chan struct{}    // closed when an early store of sealing ends
	var commit time.Duration
	if opts.Seal {
		commitStart := time.Now()
		if sealing, err = p.commitForSealLocked(); err != nil {
			return nil, err
		}
		switch {
		case readers != nil:
		case sealing != nil:
			if readers, err = p.committedStateLocked(block); err != nil {
				return nil, err
			}
		default: // not committed after all: the writer's state is still whole
			readers = w.state.Copy()
		}
		if sealing != nil && chain.StoresInBackground() {
			// The block and its state go to disk while the publication waits for its
			// deadline, as a background job (a thread of its own at a lower priority, with
			// a P of its own): not beside the next block's first flashblock, and the
			// write after the publication only sets the head (sealasync.go). Without the
			// lower priority the write stores it, after the publication: on a goroutine
			// like any other the store delayed the publication (docs/benchmarks.md).
			stored = make(chan struct{})
			go storeSealing(sealing, stored)
		}
		commit = time.Since(commitStart)
	}
	snap := &Snapshot{
		Index:    w.index,
		Block:    block,
		Parent:   w.parent,
		Receipts: append(types.Receipts(nil), w.receipts...),
		Senders:  append([]common.Address(nil), w.senders...),
		FirstNew: firstNew,
		txIndex:  maps.Clone(w.txIndex), // the writer keeps adding to its own
		state:    readers,
	}
	snap.Assembly, snap.Roots, snap.Commit = time.Since(start), roots, commit
	if opts.PublishAfter != nil {
		opts.PublishAfter()
	}
	snap.Published = time.Now()
	w.index++
	p.last = snap
	p.publishView(snap)
	published = true
	if !p.hidden { // nothing hidden reaches the feed, the subscriptions or the metrics
		for _, fn := range p.listeners {
			fn(snap)
		}
	}
	if opts.Seal {
		if sealing != nil {
			p.writeAsyncLocked(sealing, snap, stored)
		} else if _, err := p.sealAsyncLocked(ctx); err != nil {
			return snap, fmt.Errorf("%w: %w", ErrSealFailed, err)
		}
	}
	return snap, nil
}

// work is the mutable block in progress, owned by the Preconf's writer.
type work struct {
	chain    *chain.Chain
	chainCtx core.ChainContext // the chain's; it knows parent even while the chain writes it
	config   *params.ChainConfig
	parent   *types.Header
	attrs    Attributes
	header   *types.Header // attributes only: roots, gas used and hash are filled per assembly
	state    *state.StateDB
	evm      *vm.EVM
	gasPool  *core.GasPool
	signer   types.Signer
	index    int // index of the next pre-confirmation to publish
	txs      []*types.Transaction
	receipts types.Receipts
	senders  []common.Address
	txIndex  map[common.Hash]int
	blobGas  uint64
	da       daBudget       // OP Stack, Jovian: the block's data-availability footprint (opstack.go)
	enc      blockEncodings // the transactions' and receipts' trie encodings (assemble.go)
	// assembled is the last publication's block and the state copy it was assembled on (post-
	// execution applied, roots computed), with txs transactions: what Seal writes when nothing
	// was added since.
	assembled struct {
		txs   int
		block *types.Block
		state *state.StateDB
	}
	given    *Roots       // roots the next assembly takes instead of computing them (given.go)
	cheats   []stateCheat // the dev chain's state changes outside transactions (dev.go)
	unreplay bool         // a transaction a re-execution would refuse was applied (dev.go)
}

func openWork(ctx context.Context, c *chain.Chain, parent *types.Header, attrs Attributes) (*work, error) {
	config := c.Config()
	st, err := c.BlockStateAt(parent, attrs.Number, attrs.Time)
	if err != nil {
		return nil, err
	}
	header := &types.Header{
		ParentHash: attrs.ParentHash,
		Number:     new(big.Int).SetUint64(attrs.Number),
		Time:       attrs.Time,
		GasLimit:   attrs.GasLimit,
		Coinbase:   attrs.FeeRecipient,
		MixDigest:  attrs.PrevRandao,
		Extra:      attrs.ExtraData,
		Difficulty: new(big.Int),
		BaseFee:    attrs.BaseFee,
	}
	if config.IsCancun(header.Number, header.Time) {
		excess := eip4844.CalcExcessBlobGas(config, parent, header.Time)
		header.ExcessBlobGas = &excess
		header.BlobGasUsed = new(uint64)
		root := attrs.ParentBeaconRoot
		header.ParentBeaconRoot = &root
	}
	w := &work{
		chain:    c,
		chainCtx: c.Context(),
		config:   config,
		parent:   parent,
		attrs:    attrs,
		header:   header,
		state:    st,
		gasPool:  core.NewGasPool(header.GasLimit),
		signer:   types.MakeSigner(config, header.Number, header.Time),
		txIndex:  make(map[common.Hash]int),
	}
	if w.da, err = newDABudget(w); err != nil {
		return nil, err
	}
	w.evm = vm.NewEVM(core.NewEVMBlockContext(header, w.chainCtx, nil, config, st), st, config, oprollup.VMConfig(config, vm.Config{}))
	// The pre-execution system calls, as op-geth's StateProcessor and miner make them.
	if header.ParentBeaconRoot != nil {
		core.ProcessBeaconBlockRoot(*header.ParentBeaconRoot, w.evm)
	}
	if config.IsPrague(header.Number, header.Time) {
		core.ProcessParentBlockHash(parent.Hash(), w.evm)
	}
	// A Denim block's BaseTime deposit needs BaseTime's implementation, which Base's node
	// installs before the block's transactions when the state lacks it.
	if err := chain.EnsureBaseTime(c.Denim(), header.Time, st); err != nil {
		return nil, err
	}
	if err := st.Error(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrStateUnavailable, err)
	}
	return w, nil
}

// apply executes one transaction, keeping the state unchanged when it cannot be included.
func (w *work) apply(ctx context.Context, tx *types.Transaction) error {
	if _, dup := w.txIndex[tx.Hash()]; dup {
		return fmt.Errorf("transaction %s already pre-confirmed", tx.Hash().TerminalString())
	}
	if w.config.IsCancun(w.header.Number, w.header.Time) && tx.Type() == types.BlobTxType {
		max := eip4844.MaxBlobGasPerBlock(w.config, w.header.Time)
		if w.blobGas+tx.BlobGas() > max {
			return fmt.Errorf("blob gas limit reached: have %d, want %d", max-w.blobGas, tx.BlobGas())
		}
	}
	msg, err := core.TransactionToMessage(tx, w.signer, w.header.BaseFee)
	if err != nil {
		return err
	}
	w.impersonatedContract(tx, msg) // dev.go
	da, err := w.da.fits(tx)
	if err != nil {
		return err
	}
	snap, pool := w.state.Snapshot(), w.gasPool.Snapshot()
	w.state.SetTxContext(tx.Hash(), len(w.txs))
	receipt, err := core.ApplyTransactionWithEVM(msg, w.gasPool, w.state, w.header.Number, common.Hash{}, w.header.Time, tx, w.evm)
	if serr := w.state.Error(); serr != nil {
		// A read failed (a fork's upstream): the outcome is not the transaction's, and the
		// state keeps the failure. Start the block's state again from what was included.
		if rerr := w.rebuild(ctx); rerr != nil {
			return fmt.Errorf("%w: %w (and rebuilding the block in progress failed: %v)", ErrStateUnavailable, serr, rerr)
		}
		return fmt.Errorf("%w: %w", ErrStateUnavailable, serr)
	}
	if err != nil {
		w.state.RevertToSnapshot(snap)
		w.gasPool.Set(pool)
		return err
	}
	w.enc.add(receipt)
	// Derived fields go-ethereum fills when it reads receipts back from the database.
	receipt.EffectiveGasPrice = effectiveGasPrice(tx, w.header.BaseFee)
	w.txIndex[tx.Hash()] = len(w.txs)
	w.txs = append(w.txs, tx)
	w.receipts = append(w.receipts, receipt)
	w.senders = append(w.senders, msg.From)
	w.blobGas += receipt.BlobGasUsed
	w.da.used += da
	return nil
}

// updateTries writes what the transactions since the last call changed into the state's
// account and storage tries and hashes them (StateDB.IntermediateRoot): the assembly's copy
// then finds the block's earlier pre-confirmations in its tries and updates only what is new.
// Computing the root on the copy alone redid the whole block so far at every
// pre-confirmation, the tenth of a block ten times the first. go-ethereum marks the changes
// it has written (applied) and still commits them all at the seal, as its state processor
// does after the per-transaction roots of blocks before Byzantium.
func (w *work) updateTries(ctx context.Context) error {
	w.state.IntermediateRoot(w.config.IsEIP158(w.header.Number))
	if serr := w.state.Error(); serr != nil {
		// A read failed (a fork's upstream): start the block's state again from what was
		// included, as apply does.
		if rerr := w.rebuild(ctx); rerr != nil {
			return fmt.Errorf("%w: %w (and rebuilding the block in progress failed: %v)", ErrStateUnavailable, serr, rerr)
		}
		return fmt.Errorf("%w: %w", ErrStateUnavailable, serr)
	}
	return nil
}

// rebuild opens the block in progress again on its parent's state and executes the
// transactions included so far, for a state that met a read failure (which a StateDB keeps).
// What they read was read before, so the replay does not read anything new.
func (w *work) rebuild(ctx context.Context) error {
	nw, err := openWork(ctx, w.chain, w.parent, w.attrs)
	if err != nil {
		return err
	}
	for _, tx := range w.txs {
		if err := nw.apply(ctx, tx); err != nil {
			return fmt.Errorf("replay %s: %w", tx.Hash().TerminalString(), err)
		}
	}
	nw.index = w.index
	*w = *nw
	return nil
}

// assemble runs the protocol's post-execution steps on st and returns the block as if sealed
// now. Where assemblyChangesState, st is consumed: pass a copy to keep the block open.
func (w *work) assemble(ctx context.Context, st *state.StateDB) (*types.Block, error) {
	header := types.CopyHeader(w.header)
	header.GasUsed = w.gasPool.Used()
	if header.BlobGasUsed != nil {
		header.BlobGasUsed = &w.blobGas
	}
	evm := vm.NewEVM(w.evm.Context, st, w.config, oprollup.VMConfig(w.config, vm.Config{}))
	var allLogs []*types.Log
	for _, r := range w.receipts {
		allLogs = append(allLogs, r.Logs...)
	}
	var withdrawals types.Withdrawals
	if w.config.IsShanghai(header.Number, header.Time) {
		withdrawals = types.Withdrawals{}
	}
	requests, err := postExecution(w.config, header, allLogs, evm)
	if err != nil {
		return nil, err
	}
	if requests != nil {
		h := types.CalcRequestsHash(requests)
		header.RequestsHash = &h
	}
	body := &types.Body{Transactions: w.txs, Withdrawals: withdrawals}
	block, err := w.finalizeAndAssemble(ctx, header, st, body) // assemble.go
	if serr := st.Error(); serr != nil {
		return nil, fmt.Errorf("%w: %w", ErrStateUnavailable, serr)
	}
	return block, err
}

// assemblyChangesState reports whether assembling the block changes its state beyond the
// tries' hashes, which updateTries has brought up to date: a block before the merge (the
// engine's rewards), a Prague block before Isthmus (the system calls of EIP-7002 and
// EIP-7251), or one with withdrawals (never on the OP Stack: assemble gives none). The
// OP Stack's blocks from Isthmus on change nothing, so they are assembled on the writer's
// state, without a copy of everything the block has touched.
func (w *work) assemblyChangesState() bool {
	h := w.header
	if h.Difficulty.Sign() != 0 || !w.config.IsShanghai(h.Number, h.Time) {
		return true
	}
	return w.config.IsPrague(h.Number, h.Time) && !w.config.IsIsthmus(h.Time)
}

// postExecution makes the post-execution system calls and collects the execution layer
// requests (EIP-7685) as op-geth's StateProcessor and miner do: from Prague on, except on OP
// Stack chains from Isthmus on, which have an empty list. nil means no requests hash (before
// Prague).
func postExecution(config *params.ChainConfig, header *types.Header, allLogs []*types.Log, evm *vm.EVM) ([][]byte, error) {
	if config.IsIsthmus(header.Time) {
		return [][]byte{}, nil
	}
	if !config.IsPrague(header.Number, header.Time) {
		return nil, nil
	}
	requests := [][]byte{}
	if err := core.ParseDepositLogs(&requests, allLogs, config); err != nil { // EIP-6110
		return nil, fmt.Errorf("failed to parse deposit logs: %w", err)
	}
	if err := core.ProcessWithdrawalQueue(&requests, evm); err != nil { // EIP-7002
		return nil, fmt.Errorf("failed to process withdrawal queue: %w", err)
	}
	if err := core.ProcessConsolidationQueue(&requests, evm); err != nil { // EIP-7251
		return nil, fmt.Errorf("failed to process consolidation queue: %w", err)
	}
	return requests, nil
}

// effectiveGasPrice is what a transaction pays per gas in a block with this base fee: nothing
// for a deposit.
func effectiveGasPrice(tx *types.Transaction, baseFee *big.Int) *big.Int {
	if tx.IsDepositTx() {
		return new(big.Int)
	}
	if baseFee == nil {
		return tx.GasPrice()
	}
	return new(big.Int).Add(tx.EffectiveGasTipValue(baseFee), baseFee)
}
