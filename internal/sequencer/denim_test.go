package sequencer_test

import (
	"context"
	"errors"
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/consensus/misc/eip1559"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/flashrpc/flashrpc/internal/chain"
	"github.com/flashrpc/flashrpc/internal/oprollup"
	"github.com/flashrpc/flashrpc/internal/preconf"
	"github.com/flashrpc/flashrpc/internal/sequencer"
	"github.com/flashrpc/flashrpc/internal/txpool"
)

// TestDenimBlocks seals blocks by hand on a dev chain whose Denim activates after its first
// blocks, and checks every sealed block: before Denim no BaseTime deposit and Base's gas
// parameters; at the first Denim block the clock's second with part 0, the gas limit ÷ 10 and
// the denominator × 10; after it Tms + 200 per block whatever the clock says, the BaseTime
// deposit as transaction 1 before a user deposit, and the scaled parameters kept. A second
// chain that runs Denim inserts every block, executing and verifying it.
func TestDenimBlocks(t *testing.T) {
	const t0 = 1_800_000_000
	denim := uint64(t0 + 10)
	g, err := oprollup.DevDenimGenesis(1337, nil, nil, denim)
	if err != nil {
		t.Fatal(err)
	}
	open := func() *chain.Chain {
		c, err := chain.Open(chain.Config{Genesis: g, Denim: &denim})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			if err := c.Close(); err != nil {
				t.Error(err)
			}
		})
		return c
	}
	c, verifier := open(), open()
	now := time.Unix(t0, 0)
	pre := preconf.New(c)
	seq := sequencer.New(sequencer.Config{
		L1: &oprollup.DevL1{GenesisTime: g.Timestamp}, Denim: &denim, Now: func() time.Time { return now },
	}, c, pre, txpool.New(c.Config(), txpool.Config{}))
	ctx := context.Background()
	if err := seq.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(seq.Close)

	seal := func() *types.Block {
		t.Helper()
		b, err := seq.Seal(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := verifier.Insert(b); err != nil {
			t.Fatal(err)
		}
		return b
	}
	for _, b := range []*types.Block{seal(), seal()} { // blocks 1 and 2: before Denim
		if _, ok := oprollup.BlockTimeMs(b.Time(), b.Transactions()); ok || b.GasLimit() != g.GasLimit || b.Time() >= denim {
			t.Fatalf("block %d before Denim: time %d, gas limit %d, %d transactions", b.NumberU64(), b.Time(), b.GasLimit(), len(b.Transactions()))
		}
	}
	if _, err := seq.SetNextTimestamp(ctx, denim); !errors.Is(err, sequencer.ErrDenimTime) {
		t.Fatalf("SetNextTimestamp to the activation: %v", err)
	}
	now = time.Unix(int64(denim), 0) // block 3 opens at the activation: the first Denim block
	seal()
	if _, err := seq.IncreaseTime(ctx, 5); !errors.Is(err, sequencer.ErrDenimTime) {
		t.Fatalf("IncreaseTime on a Denim block: %v", err)
	}
	if off := seq.TimeOffset(); off != 0 {
		t.Fatalf("a refused IncreaseTime moved the clock by %d s", off)
	}
	depositTo := common.Address{0xde}
	if _, err := seq.Deposit(oprollup.Deposit{From: common.Address{0xaa}, To: &depositTo, Mint: big.NewInt(1), Gas: 100_000}); err != nil {
		t.Fatal(err)
	}
	var blocks []*types.Block
	for range 7 {
		blocks = append(blocks, seal()) // blocks 3 to 9; the clock stays at the activation
	}
	wantMs := denim * 1000
	for i, b := range blocks {
		ms, ok := oprollup.BlockTimeMs(b.Time(), b.Transactions())
		if !ok || ms != wantMs || b.Time() != ms/1000 {
			t.Fatalf("block %d: time %d, ms %d (%v), want %d", b.NumberU64(), b.Time(), ms, ok, wantMs)
		}
		wantMs += oprollup.DenimBlockTimeMs
		if b.GasLimit() != g.GasLimit/10 {
			t.Fatalf("block %d: gas limit %d, want %d", b.NumberU64(), b.GasLimit(), g.GasLimit/10)
		}
		d, _, _ := eip1559.DecodeOptimismExtraData(c.Config(), b.Time(), b.Extra())
		if d != oprollup.EIP1559Denominator*10 {
			t.Fatalf("block %d: denominator %d, want %d", b.NumberU64(), d, oprollup.EIP1559Denominator*10)
		}
		if i == 1 { // block 4 carries the deposit queued while block 3 was in progress
			txs := b.Transactions()
			if len(txs) != 3 || txs[2].To() == nil || *txs[2].To() != depositTo {
				t.Fatalf("block 4: %d transactions, want L1 attributes, BaseTime, the user deposit", len(txs))
			}
		}
	}
	if last := blocks[len(blocks)-1]; last.Time() != denim+1 {
		t.Fatalf("block 9 at %d, want %d (five blocks a second)", last.Time(), denim+1)
	}
	// BaseTime on the chain says what the blocks say.
	st, err := c.StateAt(blocks[6].Header())
	if err != nil {
		t.Fatal(err)
	}
	if part := st.GetState(oprollup.BaseTime, common.Hash{}).Big().Uint64(); part != 200 {
		t.Fatalf("BaseTime's part %d after block 9, want 200", part)
	}
}

// TestDenimTimer runs the sequencer's own timer at Base's cadence, a block every 200 ms on a
// chain with Denim from genesis, until eight blocks are sealed, and checks that each carries
// the BaseTime deposit, follows its parent by 200 ms, and is accepted by a chain that
// executes and verifies it.
func TestDenimTimer(t *testing.T) {
	zero := uint64(0)
	g, err := oprollup.DevDenimGenesis(1337, nil, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	open := func() *chain.Chain {
		c, err := chain.Open(chain.Config{Genesis: g, Denim: &zero})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			if err := c.Close(); err != nil {
				t.Error(err)
			}
		})
		return c
	}
	c, verifier := open(), open()
	seq := sequencer.New(sequencer.Config{
		BlockTime: 200 * time.Millisecond, PreconfInterval: 200 * time.Millisecond,
		L1: &oprollup.DevL1{GenesisTime: g.Timestamp}, Denim: &zero,
	}, c, preconf.New(c), txpool.New(c.Config(), txpool.Config{}))
	if err := seq.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for c.Head().Number.Uint64() < 8 {
		if time.Now().After(deadline) {
			t.Fatalf("head %d after 20 s, want 8 blocks", c.Head().Number)
		}
		time.Sleep(50 * time.Millisecond)
	}
	seq.Close()
	var prev uint64
	for n := uint64(1); n <= 8; n++ {
		b := c.BlockByNumber(n)
		ms, ok := oprollup.BlockTimeMs(b.Time(), b.Transactions())
		if !ok || (n == 1 && ms%1000 != 0) || (n > 1 && ms != prev+oprollup.DenimBlockTimeMs) {
			t.Fatalf("block %d at %d ms (%v), parent at %d", n, ms, ok, prev)
		}
		if err := verifier.Insert(b); err != nil {
			t.Fatal(err)
		}
		prev = ms
	}
}
