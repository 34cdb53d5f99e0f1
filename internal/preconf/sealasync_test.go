package preconf_test

import (
	"context"
	"errors"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/flashrpc/flashrpc/internal/chain"
	"github.com/flashrpc/flashrpc/internal/oprollup"
	"github.com/flashrpc/flashrpc/internal/preconf"
)

// holdWrites holds every chain write SealAsync hands over until release is called for its
// block number; started receives each block number as its write begins.
type holdWrites struct {
	started chan uint64
	gates   map[uint64]chan struct{}
	fail    error // what every write returns instead of writing, when set before it starts
}

func newHoldWrites(t *testing.T, numbers ...uint64) *holdWrites {
	h := &holdWrites{started: make(chan uint64, 16), gates: make(map[uint64]chan struct{})}
	for _, n := range numbers {
		h.gates[n] = make(chan struct{})
	}
	t.Cleanup(preconf.SetWriteHook(func(b *types.Block) error {
		h.started <- b.NumberU64()
		if g, ok := h.gates[b.NumberU64()]; ok {
			<-g
		}
		return h.fail
	}))
	return h
}

func (h *holdWrites) release(n uint64) { close(h.gates[n]) }

// preconfirm pre-confirms txs in the block in progress.
func preconfirm(t *testing.T, p *preconf.Preconf, txs ...*types.Transaction) *preconf.Snapshot {
	t.Helper()
	snap, err := commitWith(t, p, preconf.PublishOptions{}, txs...)
	if err != nil {
		t.Fatal(err)
	}
	return snap
}

// commitWith adds txs to the block in progress and commits them with opts.
func commitWith(t *testing.T, p *preconf.Preconf, opts preconf.PublishOptions, txs ...*types.Transaction) (*preconf.Snapshot, error) {
	t.Helper()
	ctx := context.Background()
	b, err := p.Begin()
	if err != nil {
		t.Fatal(err)
	}
	for _, tx := range txs {
		if err := b.Add(ctx, tx); err != nil {
			t.Fatal(err)
		}
	}
	return b.Commit(ctx, opts)
}

// openNext opens the block after p.Head().
func openNext(t *testing.T, p *preconf.Preconf, c *chain.Chain) *preconf.Snapshot {
	t.Helper()
	head := p.Head()
	attrs := preconf.NextAttributes(c.Config(), head, head.Time+1, common.Address{}, nil)
	if c.Config().Optimism != nil {
		// An OP Stack block opens with its L1-attributes deposit and carries its EIP-1559
		// parameters in its extra data, as the sequencer's blocks do (internal/sequencer).
		l1 := &oprollup.DevL1{GenesisTime: c.Genesis().Time()}
		info := l1.Info(parentTxs(t, p, c, head), attrs.Time)
		attrs.Transactions = []*types.Transaction{info.DepositTx()}
		attrs.PrevRandao = info.Hash
		attrs.ExtraData = l1.ExtraData(c.Config(), attrs.Time)
	}
	snap, err := p.Open(context.Background(), attrs, preconf.PublishOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return snap
}

// parentTxs returns the transactions of head, the block the next one opens on: from the
// chain, or from the View while the chain writes it.
func parentTxs(t *testing.T, p *preconf.Preconf, c *chain.Chain, head *types.Header) types.Transactions {
	t.Helper()
	if b := c.BlockByHash(head.Hash()); b != nil {
		return b.Transactions()
	}
	v := p.View()
	for _, snap := range []*preconf.Snapshot{v.Pending, v.Sealing} {
		if snap != nil && snap.Block.Hash() == head.Hash() {
			return snap.Block.Transactions()
		}
	}
	t.Fatalf("block %d (%s) is neither in the chain nor in the View", head.Number, head.Hash())
	return nil
}

// TestSealAsyncWhileWriting holds the chain write of block 1 and checks, at every step, what
// a reader sees: block 1's transaction never vanishes from the pre-confirmed blocks of the
// View (Pending, then Sealing, then sealed), block 2 pre-confirms on top of block 1 while it
// is being written, and the chain (the standard endpoint) shows block 1 only once durable.
func TestSealAsyncWhileWriting(t *testing.T) {
	ctx := context.Background()
	c := openChain(t)
	p := preconf.New(c)
	genesis := c.Head()
	hold := newHoldWrites(t, 1)
	tx1, tx2 := transfer(t, c, 0, common.Address{1}), transfer(t, c, 1, common.Address{2})

	openNext(t, p, c)
	last := preconfirm(t, p, tx1)
	visible := func(step string, hash common.Hash) *preconf.Snapshot {
		t.Helper()
		v := p.View()
		if snap, _, ok := v.Preconfirmed(hash); ok {
			return snap
		}
		if _, _, ok := c.Transaction(hash); ok && v.Latest.Number.Uint64() >= 1 {
			return nil
		}
		t.Fatalf("%s: transaction %s is neither pre-confirmed nor sealed in the view", step, hash.TerminalString())
		return nil
	}
	visible("pre-confirmed", tx1.Hash())

	block, err := p.SealAsync(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if block.Hash() != last.Block.Hash() {
		t.Fatalf("sealed %s, last pre-confirmation %s", block.Hash(), last.Block.Hash())
	}
	if n := <-hold.started; n != 1 {
		t.Fatalf("write of block %d started, want 1", n)
	}
	// Sealed, not written: the chain and Latest still end at genesis, pending is block 1.
	if v := p.View(); v.Latest != genesis || v.Pending != last || v.Sealing != nil {
		t.Fatalf("after SealAsync: latest %d, pending %v, sealing %v", v.Latest.Number, v.Pending, v.Sealing)
	}
	if c.Head().Hash() != genesis.Hash() || c.Heads().Latest != genesis {
		t.Fatal("the chain shows block 1 before it is durable")
	}
	visible("sealed, not written", tx1.Hash())
	if p.Head().Hash() != block.Hash() {
		t.Fatalf("Head is %d, want the sealed block 1", p.Head().Number)
	}

	// Block 2 opens on block 1's committed state and pre-confirms while block 1 is written.
	open2 := openNext(t, p, c)
	if open2.Parent.Hash() != block.Hash() {
		t.Fatalf("block 2 builds on %s, want block 1", open2.Parent.Hash())
	}
	v := p.View()
	if v.Latest != genesis || v.Sealing != last || v.Pending != open2 {
		t.Fatalf("after Open: latest %d, sealing %v, pending %v", v.Latest.Number, v.Sealing, v.Pending)
	}
	if snap := visible("next block open", tx1.Hash()); snap != last {
		t.Fatal("block 1's transaction is not in Sealing")
	}
	snap2 := preconfirm(t, p, tx2) // tx2's nonce 1 needs block 1's state
	if v := p.View(); v.Pending != snap2 || v.Sealing != last || snap2.Index != 1 {
		t.Fatalf("flashblock 1 of block 2 not published while block 1 is written: pending %v, sealing %v", v.Pending, v.Sealing)
	}
	visible("block 2 pre-confirmed", tx1.Hash())
	visible("block 2 pre-confirmed", tx2.Hash())
	if c.Head().Hash() != genesis.Hash() {
		t.Fatal("the chain shows block 1 before it is durable")
	}

	hold.release(1)
	if err := p.WaitWritten(); err != nil {
		t.Fatal(err)
	}
	v = p.View()
	if v.Latest.Hash() != block.Hash() || v.Sealing != nil || v.Pending != snap2 {
		t.Fatalf("after the write: latest %d, sealing %v, pending %v", v.Latest.Number, v.Sealing, v.Pending)
	}
	if snap := visible("written", tx1.Hash()); snap != nil {
		t.Fatal("block 1's transaction is still pre-confirmed after block 1 is sealed")
	}
	visible("written", tx2.Hash())
	if _, _, ok := c.Transaction(tx1.Hash()); !ok {
		t.Fatal("block 1's transaction is not in the chain")
	}

	// Block 2 seals on block 1, written.
	sealed2, err := p.SealAsync(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.WaitWritten(); err != nil {
		t.Fatal(err)
	}
	if c.Head().Hash() != sealed2.Hash() || len(sealed2.Transactions()) != 1 {
		t.Fatalf("head %d, want block 2 with one transaction", c.Head().Number)
	}
	if got := c.BlockByHash(sealed2.Hash()); got == nil || got.Root() != snap2.Block.Root() {
		t.Fatal("block 2 as written differs from its last pre-confirmation")
	}
}

// TestSealAsyncListenersInOrder seals blocks back to back, the timer's way, and checks that
// the chain's listeners hear of every block in order, each after the View names it sealed,
// and that the writes keep their order.
func TestSealAsyncListenersInOrder(t *testing.T) {
	ctx := context.Background()
	c := openChain(t)
	p := preconf.New(c)
	var heard []uint64
	c.OnHead(func(ev chain.HeadEvent) {
		if v := p.View(); v.Latest.Hash() != ev.Block.Hash() || v.Sealing != nil {
			t.Errorf("OnHead of block %d: the view has latest %d, sealing %v", ev.Block.NumberU64(), v.Latest.Number, v.Sealing != nil)
		}
		heard = append(heard, ev.Block.NumberU64())
	})
	hold := newHoldWrites(t)
	const blocks = 5
	for n := range uint64(blocks) {
		openNext(t, p, c)
		preconfirm(t, p, transfer(t, c, n, common.Address{byte(n)}))
		if _, err := p.SealAsync(ctx); err != nil { // waits for the write before it
			t.Fatal(err)
		}
	}
	if err := p.WaitWritten(); err != nil {
		t.Fatal(err)
	}
	close(hold.started)
	var started []uint64
	for n := range hold.started {
		started = append(started, n)
	}
	for i, n := range heard {
		if n != uint64(i+1) || started[i] != n {
			t.Fatalf("writes started %v, listeners heard %v: want 1..%d in order", started, heard, blocks)
		}
	}
	if len(heard) != blocks || c.Head().Number.Uint64() != blocks {
		t.Fatalf("listeners heard %v, head %d", heard, c.Head().Number)
	}
}

// TestSealAsyncWriteFails fails the chain write of block 1 and checks that the block and the
// block built on it leave the View (nothing names a block the chain does not have), that the
// writer hears of it (Begin: ErrNoBlock, with the write's error) and that the chain goes on
// from its head.
func TestSealAsyncWriteFails(t *testing.T) {
	ctx := context.Background()
	c := openChain(t)
	p := preconf.New(c)
	genesis := c.Head()
	hold := newHoldWrites(t, 1)
	broken := errors.New("disk on fire")
	hold.fail = broken
	openNext(t, p, c)
	preconfirm(t, p, transfer(t, c, 0, common.Address{1}))
	if _, err := p.SealAsync(ctx); err != nil {
		t.Fatal(err)
	}
	<-hold.started
	openNext(t, p, c) // block 2, on block 1
	hold.release(1)
	if err := p.WaitWritten(); !errors.Is(err, broken) {
		t.Fatalf("WaitWritten: %v, want the write's error", err)
	}
	if v := p.View(); v.Latest != genesis || v.Sealing != nil || v.Pending != nil {
		t.Fatalf("after the failed write: latest %d, sealing %v, pending %v", v.Latest.Number, v.Sealing, v.Pending)
	}
	if _, err := p.Begin(); !errors.Is(err, preconf.ErrNoBlock) {
		t.Fatalf("Begin after the failed write: %v, want ErrNoBlock", err)
	}
	hold.fail = nil
	if p.Head().Hash() != genesis.Hash() {
		t.Fatalf("Head %d after the failed write, want genesis", p.Head().Number)
	}
	snap := openNext(t, p, c)
	preconfirm(t, p, transfer(t, c, 0, common.Address{1}))
	if _, err := p.SealAsync(ctx); err != nil {
		t.Fatal(err)
	}
	if err := p.WaitWritten(); err != nil {
		t.Fatal(err)
	}
	if c.Head().Number.Uint64() != 1 || snap.Number() != 1 {
		t.Fatalf("head %d after sealing again", c.Head().Number)
	}
}
