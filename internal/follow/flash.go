package follow

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/flashrpc/flashrpc/internal/flashblocks"
	"github.com/flashrpc/flashrpc/internal/metrics"
	"github.com/flashrpc/flashrpc/internal/preconf"
)

// Pre-confirmations from the feed: each flashblock is re-executed on top of the block in
// progress (index 0 opens it on its sealed parent) and published only when the partial
// block has the hash, state root, receipts root and gas used the sequencer published
// (preconf's checked Open and Commit). A flashblock without roots (OP's subblocks, whose
// state root and block hash are zero) cannot be held to them: its re-execution is published
// when its receipts root and gas used are the published ones, and the block is checked when
// it is sealed instead (sync.go, insert: the sealed block must begin with the pre-confirmed
// transactions, in order, with the same receipts; a difference is retracted and counted).
// Whether a flashblock has roots is read from each flashblock, not set for the feed. The
// sequence must be exact: index 0, then 1, 2, … of the same payload. A gap, a duplicate, an
// index out of order, a lost message or a flashblock that does not verify drops the block in
// progress (`pending` falls back to the sealed head) until the next index 0. A flashblock
// carrying a post-execution transaction (Lagoon) is refused: flashrpc does not run Lagoon's
// rules, and the transaction changes the gas accounting of those before it.

// sequence is the flashblock sequence being applied.
type sequence struct {
	id     flashblocks.PayloadID
	number uint64
	index  uint64 // of the last applied flashblock
}

// Reasons a flashblock is refused.
var (
	errGap      = errors.New("index out of sequence (gap, duplicate or out of order)")
	errNoParent = errors.New("parent block not known in time")
	// errNotUpstreams refuses an index 0 whose parent the upstream does not have: a feed of
	// another chain, or a block the upstream replaced.
	errNotUpstreams = errors.New("parent block is not the upstream's (a feed of another chain?)")
	errStale        = errors.New("block already sealed")
	// errPostExec refuses a flashblock with a post-execution transaction (type 0x7d):
	// Lagoon's rules, which flashrpc does not run, decide its effect on the block.
	errPostExec = errors.New("post-execution transaction (type 0x7d, Lagoon): flashrpc does not run Lagoon's rules, so it cannot re-execute this block")
)

// onPayload handles one flashblock from the feed.
func (f *Follower) onPayload(ctx context.Context, r received) {
	if f.lost.Swap(false) && f.cur != nil {
		f.breakSequence(r.p, errLost)
	}
	p := r.p
	err := postExec(p)
	if err == nil && p.Index == 0 {
		err = f.open(ctx, p, r.txs)
	} else if err == nil {
		err = f.apply(ctx, p, r.txs)
	}
	if err != nil {
		f.breakSequence(p, err)
		return
	}
	if f.cur == nil { // skipped while waiting for an index 0: nothing was verified
		return
	}
	if f.cfg.Verified != nil {
		f.cfg.Verified(p, r.text)
	}
	if f.m != nil {
		f.m.FeedServed(time.Since(r.arrived))
	}
}

// open starts a block from its index 0: on the sealed head when that is its parent; on the
// block the replica pre-confirmed to its end when that is the parent (sealed here at once,
// and checked against the upstream's later); else after fetching the parent from the
// upstream, for up to ParentWait. d is p's transactions as the feed reader decoded them, nil
// to decode them here.
func (f *Follower) open(ctx context.Context, p *flashblocks.Payload, d *decoded) error {
	base := p.Base
	number := uint64(base.BlockNumber)
	if number != p.Metadata.BlockNumber {
		return fmt.Errorf("base block_number %d and metadata block_number %d differ", number, p.Metadata.BlockNumber)
	}
	if number == 0 {
		return errors.New("index 0 of block 0")
	}
	// A block at which a fork flashrpc does not run is active is never pre-confirmed here:
	// its pre-confirmations would be executed under older rules.
	if err := f.rules.Check(number, uint64(base.Timestamp)); err != nil {
		return err
	}
	head := f.chain.Head()
	// The last pre-confirmation's hash is the one computed here: a feed without roots
	// published none, and for one with roots the check made them equal.
	if last := f.pre.Last(); !f.remote && last != nil && last.Block.Hash() == base.ParentHash && last.Block.ParentHash() == head.Hash() {
		sealed, err := f.pre.Seal(ctx)
		if err != nil {
			return fmt.Errorf("seal the pre-confirmed parent %d: %w", last.Number(), err)
		}
		f.logBlock("block sealed from its verified pre-confirmations", sealed)
		head = f.chain.Head()
	}
	if head.Hash() != base.ParentHash {
		if last := f.pre.Last(); last == nil || last.Number() != number-1 {
			// Kept otherwise: the upstream's block number-1, which differs from it, replaces
			// it with a retraction (sync.go, insert).
			f.discard()
		}
		f.cur = nil
		if number <= head.Number.Uint64() && f.chain.HeaderByHash(base.ParentHash) != nil {
			return errStale
		}
		if err := f.waitParent(ctx, p); err != nil {
			return err
		}
	}
	f.discard()
	if d == nil {
		d = decodeNow(ctx, p, f.signerFor(number, uint64(base.Timestamp)), f.chain.Config().IsOptimism())
	}
	txs, senders := d.txs, d.senders
	if d.err != nil {
		return d.err
	}
	senders.waitAll() // index 0 is executed in one go
	if f.remote {
		f.prefetchState(ctx, f.chain.Head(), base.FeeRecipient, txs, f.signerFor(number, uint64(base.Timestamp)))
	}
	attrs := preconf.Attributes{
		ParentHash:       base.ParentHash,
		Number:           number,
		Time:             uint64(base.Timestamp),
		GasLimit:         uint64(base.GasLimit),
		FeeRecipient:     base.FeeRecipient,
		PrevRandao:       base.PrevRandao,
		ExtraData:        base.ExtraData,
		BaseFee:          (*big.Int)(base.BaseFeePerGas),
		ParentBeaconRoot: base.ParentBeaconBlockRoot,
		Transactions:     txs,
	}
	if attrs.BaseFee == nil {
		return errors.New("base without base_fee_per_gas")
	}
	if _, err := f.pre.Open(ctx, attrs, f.publishOptions(p)); err != nil {
		return err
	}
	f.cur = &sequence{id: p.PayloadID, number: number}
	return nil
}

// waitParent syncs with the upstream until the flashblock's parent is the head, for up to
// ParentWait. A parent the upstream does not know when it already has a block at that
// height, or is more than parentAhead blocks below it, is refused at once (errNotUpstreams):
// the feed is not of the upstream's chain, or that block was replaced, and waiting would hold
// the writer up for nothing.
func (f *Follower) waitParent(ctx context.Context, p *flashblocks.Payload) error {
	parent, height := p.Base.ParentHash, uint64(p.Base.BlockNumber)-1
	foreign := func() (bool, uint64) {
		known, head, err := f.up.lookup(ctx, parent)
		return err == nil && !known && (head >= height || height > head+parentAhead), head
	}
	// Asked twice before refusing: an upstream that runs a batch's calls concurrently may
	// import the parent between them and answer "unknown" with a head past it.
	if refuse, _ := foreign(); refuse {
		if refuse, head := foreign(); refuse {
			return fmt.Errorf("%w: parent %s of block %d, the upstream's head is %d", errNotUpstreams, parent.TerminalString(), height+1, head)
		}
	}
	deadline := time.Now().Add(f.cfg.ParentWait)
	for {
		if n, err := f.up.blockNumber(ctx); err == nil {
			f.upHead.Store(max(n, f.upHead.Load()))
			f.upKnown.Store(true)
			f.upLastOK.Store(time.Now().UnixNano())
		}
		f.sync(ctx)
		if f.chain.Head().Hash() == parent {
			return nil
		}
		if time.Now().After(deadline) || !sleep(ctx, 20*time.Millisecond) {
			return errNoParent
		}
	}
}

// parentAhead is how far above the upstream's head a flashblock's parent may be and still be
// waited for (the upstream's RPC lags its sequencer's feed by about a block).
const parentAhead = 2

// apply re-executes a flashblock after index 0 on the block in progress. d is p's
// transactions as the feed reader decoded them, nil to decode them here.
func (f *Follower) apply(ctx context.Context, p *flashblocks.Payload, d *decoded) error {
	c := f.cur
	if c == nil {
		f.log.Debug("flashblock skipped: waiting for the next index 0", "block", p.Metadata.BlockNumber, "index", p.Index)
		return nil
	}
	if p.PayloadID != c.id || p.Metadata.BlockNumber != c.number || p.Index != c.index+1 {
		return fmt.Errorf("%w: got block %d index %d payload %s after block %d index %d payload %s", errGap, p.Metadata.BlockNumber, p.Index, p.PayloadID, c.number, c.index, c.id)
	}
	last := f.pre.Last()
	if last == nil {
		return errors.New("no block in progress")
	}
	if d == nil {
		d = decodeNow(ctx, p, f.signerFor(c.number, last.Block.Time()), f.chain.Config().IsOptimism())
	}
	txs, senders := d.txs, d.senders
	if d.err != nil {
		return d.err
	}
	if f.remote {
		senders.waitAll()
		f.prefetchState(ctx, last.Parent, last.Block.Coinbase(), txs, f.signerFor(c.number, last.Block.Time()))
	}
	batch, err := f.pre.Begin()
	if err != nil {
		return err
	}
	for i, tx := range txs {
		senders.wait(i)
		// The feed's bytes are the transaction's encoding: the transactions root takes them.
		if err := batch.AddEncoded(ctx, tx, p.Diff.Transactions[i]); err != nil {
			batch.Abort()
			return fmt.Errorf("transaction %d (%s) does not apply: %w", i, tx.Hash().TerminalString(), err)
		}
	}
	if _, err := batch.Commit(ctx, f.publishOptions(p)); err != nil {
		return err
	}
	c.index = p.Index
	return nil
}

// breakSequence refuses p (nil: a lost message), drops the block in progress and waits for
// the next index 0.
func (f *Follower) breakSequence(p *flashblocks.Payload, err error) {
	if errors.Is(err, errStale) {
		f.log.Debug("flashblock of a sealed block skipped", "block", p.Metadata.BlockNumber, "index", p.Index)
		return
	}
	if last := f.pre.Last(); errors.Is(err, errNoParent) && last != nil && last.Number()+1 == p.Metadata.BlockNumber {
		// The block in progress is the parent's number, pre-confirmed and served but not
		// the parent: it stays until the upstream's block of that number replaces it with
		// a retraction (sync.go, insert), which is where a feed without roots is verified.
		f.cur = nil
		f.log.Warn("flashblock refused: its parent has not arrived from the upstream; the pre-confirmations of the block before it stay until it does",
			"block", p.Metadata.BlockNumber, "index", p.Index, "parent", p.Base.ParentHash, "err", err)
		if f.m != nil {
			f.m.VerificationFailed(metrics.FailFlashblock)
		}
		return
	}
	f.discard()
	f.refuseFlash(p, err)
}

// refuseFlash logs a refused flashblock (nil: one that did not decode).
func (f *Follower) refuseFlash(p *flashblocks.Payload, err error) {
	if p == nil {
		f.log.Warn("flashblock refused: pending falls back to the sealed head until the next block", "err", err)
	} else {
		f.log.Warn("flashblock refused: pending falls back to the sealed head until the next block", "block", p.Metadata.BlockNumber, "index", p.Index, "err", err)
	}
	if f.m != nil {
		f.m.VerificationFailed(metrics.FailFlashblock)
	}
}

// postExec refuses a flashblock that carries a post-execution transaction, naming it.
func postExec(p *flashblocks.Payload) error {
	if len(p.Diff.PostExecTx) == 0 {
		return nil
	}
	pe, err := p.Diff.PostExec()
	if err != nil {
		return fmt.Errorf("diff.post_exec_tx: %w: %w", errPostExec, err)
	}
	return fmt.Errorf("diff.post_exec_tx %s (version %d, block %d): %w", pe.Hash.TerminalString(), pe.Version, pe.BlockNumber, errPostExec)
}

// signerFor returns the signer of block number at time.
func (f *Follower) signerFor(number, time uint64) types.Signer {
	return types.MakeSigner(f.chain.Config(), new(big.Int).SetUint64(number), time)
}

// publishOptions returns how the re-execution of p is published: checked against what the
// sequencer published (check) and, for a replica on the upstream's state, with its roots
// (givenRoots).
func (f *Follower) publishOptions(p *flashblocks.Payload) preconf.PublishOptions {
	opts := preconf.PublishOptions{Check: check(p)}
	if f.remote {
		opts.Roots = f.givenRoots(p)
	}
	return opts
}

// check returns the verification of a flashblock's re-execution: the partial block must be
// the one the sequencer published. Without published roots (Diff.HasRoots) only the receipts
// root, gas used and DA footprint, when published, are compared: the block is verified at its
// seal.
func check(p *flashblocks.Payload) func(*types.Block) error {
	d := &p.Diff
	if !d.HasRoots() {
		return func(b *types.Block) error { return checkReceipts(b, d) }
	}
	return func(b *types.Block) error {
		if b.Root() != d.StateRoot {
			return fmt.Errorf("state root %s, the sequencer published %s", b.Root().TerminalString(), d.StateRoot.TerminalString())
		}
		if err := checkReceipts(b, d); err != nil {
			return err
		}
		if b.Hash() != d.BlockHash {
			return fmt.Errorf("block hash %s, the sequencer published %s", b.Hash().TerminalString(), d.BlockHash.TerminalString())
		}
		return nil
	}
}

// checkReceipts compares the partial block's receipts root, gas used and blob gas used (on
// the OP Stack from Jovian on, the DA footprint) with the published ones; a zero or absent
// value is not published and not compared.
func checkReceipts(b *types.Block, d *flashblocks.Diff) error {
	switch {
	case d.ReceiptsRoot != (common.Hash{}) && b.ReceiptHash() != d.ReceiptsRoot:
		return fmt.Errorf("receipts root %s, the sequencer published %s", b.ReceiptHash().TerminalString(), d.ReceiptsRoot.TerminalString())
	case d.GasUsed != 0 && b.GasUsed() != uint64(d.GasUsed):
		return fmt.Errorf("gas used %d, the sequencer published %d", b.GasUsed(), d.GasUsed)
	case d.BlobGasUsed != nil && b.BlobGasUsed() != nil && *b.BlobGasUsed() != uint64(*d.BlobGasUsed):
		return fmt.Errorf("blob gas used (DA footprint) %d, the sequencer published %d", *b.BlobGasUsed(), *d.BlobGasUsed)
	}
	return nil
}
