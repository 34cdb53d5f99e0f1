package preconf_test

import (
	"context"
	"errors"
	"math/big"
	"runtime"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"
	"github.com/holiman/uint256"

	"github.com/flashrpc/flashrpc/internal/chain"
	"github.com/flashrpc/flashrpc/internal/chain/kvstore"
	"github.com/flashrpc/flashrpc/internal/oprollup"
	"github.com/flashrpc/flashrpc/internal/preconf"
)

// commitSeal pre-confirms txs as the block's last pre-confirmation with
// PublishOptions.Seal; during, when set, runs in its PublishAfter.
func commitSeal(t *testing.T, p *preconf.Preconf, during func(), txs ...*types.Transaction) (*preconf.Snapshot, error) {
	t.Helper()
	return commitWith(t, p, preconf.PublishOptions{Seal: true, PublishAfter: during}, txs...)
}

// TestPublishAndSeal seals blocks with their last pre-confirmation (PublishOptions.Seal): the
// block's state is committed (readable at the published block's root) while readers still
// see the pre-confirmation before and the chain its old head, the sealed block is the
// published one and its readers see its state, it is written on another goroutine as
// SealAsync writes, and the next block opens and pre-confirms on it. On Ethereum's dev chain
// the assembly works on a copy of the state (Prague's system calls); on an OP Stack chain it
// works on the writer's state, which the seal commits, and the readers open the committed
// state.
func TestPublishAndSeal(t *testing.T) {
	// As the node does (cmd/flashrpc): a sealed block is then stored while its publication
	// waits (chain.StoresInBackground), which testPublishAndSeal checks.
	if !kvstore.LowerBackgroundPriority() && runtime.GOOS == "linux" {
		t.Fatal("this process may not lower its threads' priority (a sandbox filtering setpriority?)")
	}
	t.Run("ethereum", func(t *testing.T) { testPublishAndSeal(t, openChain(t)) })
	t.Run("opstack", func(t *testing.T) { testPublishAndSeal(t, openOPChain(t, chain.SchemeHash)) })
	t.Run("opstack/path", func(t *testing.T) { testPublishAndSeal(t, openOPChain(t, chain.SchemePath)) })
}

// waitStored waits until the chain has stored the block with this hash, canonical or not,
// and fails the test after a minute.
func waitStored(t *testing.T, c *chain.Chain, hash common.Hash) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); c.BlockByHash(hash) == nil; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("block %s is not stored a minute after its commit", hash.TerminalString())
		}
	}
}

// openOPChain opens an OP Stack dev chain (Isthmus on) with testAddr funded, its state kept
// with scheme.
func openOPChain(t *testing.T, scheme string) *chain.Chain {
	t.Helper()
	g := oprollup.DevGenesis(chain.DefaultChainID, []common.Address{testAddr}, big.NewInt(params.Ether))
	c, err := chain.Open(chain.Config{DataDir: t.TempDir(), Genesis: g, StateScheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if !c.Config().IsOptimismIsthmus(0) {
		t.Fatal("the OP Stack dev chain is expected to run Isthmus from genesis")
	}
	return c
}

func testPublishAndSeal(t *testing.T, c *chain.Chain) {
	p := preconf.New(c)
	hold := newHoldWrites(t, 1)
	genesis := c.Head()
	to := common.Address{0x51}
	open1 := openNext(t, p, c)
	var headBefore bool
	snap, err := commitSeal(t, p, func() {
		if v := p.View(); v.Pending != open1 {
			t.Errorf("the sealing pre-confirmation reached the View before its wait")
		}
		headBefore = c.Head().Hash() == genesis.Hash() // the chain's head moves only with the write
		// Committed before the wait: the chain's context knows the header of the block being
		// written (chain.Chain.CommitExecuted).
		if _, plain := c.Context().(*core.BlockChain); plain {
			t.Errorf("the block's state was not committed before the wait for the deadline")
		}
	}, transfer(t, c, 0, to))
	if err != nil {
		t.Fatal(err)
	}
	if !headBefore {
		t.Fatal("the block became the head before its pre-confirmation was published")
	}
	st, err := c.StateAt(snap.Block.Header())
	if err != nil {
		t.Fatalf("the sealed block's state is not committed: %v", err)
	}
	if got := st.GetBalance(to); got.Cmp(uint256.NewInt(1)) != 0 {
		t.Fatalf("balance at the sealed block's root: %v, want 1", got)
	}
	checkReaders(t, snap, to, uint256.NewInt(1))
	if n := <-hold.started; n != 1 {
		t.Fatalf("write of block %d started, want 1", n)
	}
	// Stored from its commit on, not by the write, which is held: the flush of its state
	// stays out of the next block's first flashblock.
	if chain.StoresInBackground() {
		waitStored(t, c, snap.Block.Hash())
	}
	if p.Head().Hash() != snap.Block.Hash() || p.Last() != nil {
		t.Fatalf("after the sealing publication: head %d, block in progress %v", p.Head().Number, p.Last() != nil)
	}
	if v := p.View(); v.Pending != snap || v.Latest != genesis {
		t.Fatalf("while block 1 is written: pending %v, latest %d", v.Pending, v.Latest.Number)
	}
	// Block 2 opens on block 1 and pre-confirms on its state while block 1 is written.
	if open2 := openNext(t, p, c); open2.Parent.Hash() != snap.Block.Hash() {
		t.Fatalf("block 2 builds on %s, want block 1", open2.Parent.Hash())
	}
	preconfirm(t, p, transfer(t, c, 1, to))
	hold.release(1)
	snap2, err := commitSeal(t, p, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.WaitWritten(); err != nil {
		t.Fatal(err)
	}
	if c.Head().Hash() != snap2.Block.Hash() || c.BlockByHash(snap.Block.Hash()) == nil {
		t.Fatalf("head %d, want block 2 on block 1", c.Head().Number)
	}
	checkReaders(t, snap, to, uint256.NewInt(1)) // block 1's, once written and built upon
	checkReaders(t, snap2, to, uint256.NewInt(2))
	if got := c.BlockByNumber(2); got.Root() != snap2.Block.Root() || userTxs(got) != 1 {
		t.Fatal("block 2 as written differs from its sealing pre-confirmation")
	}
}

// TestPublishAndSealCheated seals a cheated block with its last pre-confirmation: its state
// cannot be committed before the publication (the seal writes it as a cheated block), so it
// is sealed after it, and the cheat is in the written block's state.
func TestPublishAndSealCheated(t *testing.T) {
	ctx := context.Background()
	c := openChain(t)
	p := preconf.New(c)
	addr := common.Address{0xc4}
	openNext(t, p, c)
	if _, err := p.Dev().Cheat(ctx, func(st *state.StateDB) {
		st.SetBalance(addr, uint256.NewInt(77), tracing.BalanceChangeUnspecified)
	}); err != nil {
		t.Fatal(err)
	}
	snap, err := commitSeal(t, p, nil, transfer(t, c, 0, common.Address{0x51}))
	if err != nil {
		t.Fatal(err)
	}
	if err := p.WaitWritten(); err != nil {
		t.Fatal(err)
	}
	head := c.Head()
	if head.Number.Uint64() != 1 || head.Root != snap.Block.Root() {
		t.Fatalf("head %d (root %s), want block 1 with root %s", head.Number, head.Root, snap.Block.Root())
	}
	st, err := c.StateAt(head)
	if err != nil {
		t.Fatal(err)
	}
	if got := st.GetBalance(addr); got.ToBig().Cmp(big.NewInt(77)) != 0 {
		t.Fatalf("cheated balance %v in the written block, want 77", got)
	}
	checkReaders(t, snap, addr, uint256.NewInt(77))
}

// userTxs counts block's transactions that are not deposits (an OP Stack block opens with its
// L1-attributes deposit).
func userTxs(block *types.Block) int {
	n := 0
	for _, tx := range block.Transactions() {
		if !tx.IsDepositTx() {
			n++
		}
	}
	return n
}

// checkReaders checks what the readers of a block's sealing pre-confirmation see, through
// each of a Snapshot's ways to its state: addr's balance is want, and a copy's root is the
// block's. A block committed before its publication gives them the committed state opened at
// its root, a cheated one a copy of the writer's.
func checkReaders(t *testing.T, snap *preconf.Snapshot, addr common.Address, want *uint256.Int) {
	t.Helper()
	snap.ReadState(func(st *state.StateDB) {
		if got := st.GetBalance(addr); got.Cmp(want) != 0 {
			t.Errorf("ReadState: balance %v, want %v", got, want)
		}
	})
	exec, err := snap.ExecState()
	if err != nil {
		t.Fatal(err)
	}
	if got := exec.GetBalance(addr); got.Cmp(want) != 0 {
		t.Errorf("ExecState: balance %v, want %v", got, want)
	}
	cp := snap.CopyState()
	if got := cp.GetBalance(addr); got.Cmp(want) != 0 {
		t.Errorf("CopyState: balance %v, want %v", got, want)
	}
	if root := cp.IntermediateRoot(true); root != snap.Block.Root() {
		t.Errorf("CopyState: root %s, want the block's %s", root, snap.Block.Root())
	}
}

// TestPublishAndSealCommittedStateFails: when the state a sealing publication committed cannot
// be opened for its readers, the block is dropped as after a failed commit (the path both
// share): nothing of it is published, its pre-confirmations are retracted, its transactions
// are kept for TakeDropped, the chain keeps its head, and the next block opens and seals on
// that head.
func TestPublishAndSealCommittedStateFails(t *testing.T) {
	c := openOPChain(t, chain.SchemeHash)
	p := preconf.New(c)
	genesis := c.Head()
	broken := errors.New("state gone")
	remove := preconf.SetOpenCommittedHook(func(*types.Block) error { return broken })
	openNext(t, p, c)
	first := preconfirm(t, p, transfer(t, c, 0, common.Address{1}))
	tx := transfer(t, c, 1, common.Address{2})
	if _, err := commitSeal(t, p, func() { t.Error("published a block whose committed state cannot be read") }, tx); !errors.Is(err, broken) {
		t.Fatalf("sealing: %v, want the opening's error", err)
	}
	remove()
	if v := p.View(); v.Latest != genesis || v.Pending != nil || v.Sealing != nil {
		t.Fatalf("after the failed opening: latest %d, pending %v, sealing %v", v.Latest.Number, v.Pending, v.Sealing)
	}
	if _, _, ok := p.View().Preconfirmed(first.Block.Transactions()[1].Hash()); ok {
		t.Fatal("the dropped block's pre-confirmed transaction is still pre-confirmed")
	}
	dropped := p.TakeDropped()
	if len(dropped) != 2 || dropped[0].Hash() != first.Block.Transactions()[1].Hash() || dropped[1].Hash() != tx.Hash() {
		t.Fatalf("dropped %d transactions, want the block's two user transactions", len(dropped))
	}
	if c.Head().Hash() != genesis.Hash() || p.Head().Hash() != genesis.Hash() {
		t.Fatalf("head %d after the drop, want genesis", c.Head().Number)
	}
	sealBlockOneAgain(t, p, c)
}

// TestPublishAndSealAfterFailedWrite fails the chain write of block 1 while block 2 is built
// on it: block 2's sealing publication must not seal (nor publish) it, and the chain goes on
// from its head.
func TestPublishAndSealAfterFailedWrite(t *testing.T) {
	ctx := context.Background()
	c := openChain(t)
	p := preconf.New(c)
	genesis := c.Head()
	hold := newHoldWrites(t, 1)
	broken := errors.New("disk on fire")
	hold.fail = broken
	openNext(t, p, c)
	if _, err := commitSeal(t, p, nil, transfer(t, c, 0, common.Address{1})); err != nil {
		t.Fatal(err)
	}
	<-hold.started
	openNext(t, p, c) // block 2, on block 1
	b, err := p.Begin()
	if err != nil {
		t.Fatal(err)
	}
	hold.release(1)
	if _, err := b.Commit(ctx, preconf.PublishOptions{Seal: true}); !errors.Is(err, broken) {
		t.Fatalf("sealing block 2 on a block whose write failed: %v, want the write's error", err)
	}
	if v := p.View(); v.Latest != genesis || v.Pending != nil || v.Sealing != nil {
		t.Fatalf("after the failed write: latest %d, pending %v, sealing %v", v.Latest.Number, v.Pending, v.Sealing)
	}
	if c.Head().Hash() != genesis.Hash() || p.Head().Hash() != genesis.Hash() {
		t.Fatalf("head %d after the failed write, want genesis", c.Head().Number)
	}
	hold.fail = nil
	sealBlockOneAgain(t, p, c)
}

// sealBlockOneAgain opens a block on the genesis head left after a drop, seals it with its
// last pre-confirmation and checks that it is written as block 1.
func sealBlockOneAgain(t *testing.T, p *preconf.Preconf, c *chain.Chain) {
	t.Helper()
	openNext(t, p, c)
	if _, err := commitSeal(t, p, nil, transfer(t, c, 0, common.Address{1})); err != nil {
		t.Fatal(err)
	}
	if err := p.WaitWritten(); err != nil || c.Head().Number.Uint64() != 1 {
		t.Fatalf("sealing again: %v, head %d", err, c.Head().Number)
	}
}
