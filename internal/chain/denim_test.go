package chain_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/flashrpc/flashrpc/internal/chain"
	"github.com/flashrpc/flashrpc/internal/oprollup"
	"github.com/flashrpc/flashrpc/internal/preconf"
)

// denimChain opens a Denim dev chain (BaseTime in its genesis) whose Denim activation is
// genesisDenim, run with Denim from denim (nil: the chain does not run it).
func denimChain(t *testing.T, genesisDenim uint64, denim *uint64) *chain.Chain {
	t.Helper()
	g, err := oprollup.DevDenimGenesis(chain.DefaultChainID, nil, nil, genesisDenim)
	if err != nil {
		t.Fatal(err)
	}
	return openDenim(t, g, denim)
}

// openDenim opens a chain with genesis g that runs Denim from denim.
func openDenim(t *testing.T, g *core.Genesis, denim *uint64) *chain.Chain {
	t.Helper()
	c, err := chain.Open(chain.Config{DataDir: t.TempDir(), Genesis: g, Denim: denim})
	if err != nil {
		t.Fatal(err)
	}
	closeAtEnd(t, c)
	return c
}

// sealDenim seals on c one block per entry of times (header timestamp and millisecond part;
// a negative part: no BaseTime deposit), each opening with the L1-attributes deposit and,
// when it has a part, the BaseTime deposit, which must succeed. The blocks are written by the
// sequencer's path, which does not verify them.
func sealDenim(t *testing.T, c *chain.Chain, times [][2]int) []*types.Block {
	t.Helper()
	return sealDenimChecked(t, c, times, true)
}

// sealDenimChecked is sealDenim, checking that every transaction succeeded when check is set.
func sealDenimChecked(t *testing.T, c *chain.Chain, times [][2]int, check bool) []*types.Block {
	t.Helper()
	ctx := context.Background()
	p := preconf.New(c)
	l1 := &oprollup.DevL1{GenesisTime: c.Head().Time}
	var blocks []*types.Block
	var parentTxs types.Transactions
	for _, tp := range times {
		head := c.Head()
		at := uint64(tp[0])
		attrs := preconf.NextAttributes(c.Config(), head, at, oprollup.SequencerFeeVault, head.Extra)
		info := l1.Info(parentTxs, at)
		attrs.Transactions, attrs.PrevRandao = []*types.Transaction{info.DepositTx()}, info.Hash
		if tp[1] >= 0 {
			attrs.Transactions = append(attrs.Transactions, oprollup.BaseTimeDeposit(attrs.Number, uint16(tp[1])))
		}
		if _, err := p.Open(ctx, attrs, preconf.PublishOptions{}); err != nil {
			t.Fatal(err)
		}
		b, err := p.Seal(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for i, r := range c.Receipts(b.Hash()) {
			if check && r.Status != types.ReceiptStatusSuccessful {
				t.Fatalf("block %d: transaction %d failed", b.NumberU64(), i)
			}
		}
		blocks, parentTxs = append(blocks, b), b.Transactions()
	}
	return blocks
}

// TestDenimEqualTimestamps inserts 200 ms blocks (five to a second) through the chain's insert
// path, which executes and verifies them: a chain that runs Denim accepts a header with its
// parent's timestamp, a chain that does not refuses it, and so does one whose Denim comes
// later than the blocks.
func TestDenimEqualTimestamps(t *testing.T) {
	zero := uint64(0)
	src := denimChain(t, 0, &zero)
	const t0 = 1_800_000_000
	blocks := sealDenim(t, src, [][2]int{{t0, 0}, {t0, 200}, {t0, 400}, {t0, 600}, {t0, 800}, {t0 + 1, 0}, {t0 + 1, 200}})
	if ms, ok := oprollup.BlockTimeMs(blocks[5].Time(), blocks[5].Transactions()); !ok || ms != (t0+1)*1000 {
		t.Fatalf("block 6's time %d ms, %v", ms, ok)
	}

	dst := denimChain(t, 0, &zero)
	if err := dst.InsertBlocks(blocks[:4]); err != nil { // a batch: VerifyHeaders
		t.Fatal(err)
	}
	for _, b := range blocks[4:] { // one by one: VerifyHeader
		if err := dst.Insert(b); err != nil {
			t.Fatal(err)
		}
	}
	if head := dst.Head(); head.Hash() != blocks[6].Hash() {
		t.Fatalf("head %d, want block 7", head.Number)
	}

	refused := func(name string, blocks []*types.Block, denim *uint64) {
		t.Helper()
		c := denimChain(t, 0, denim)
		err := c.InsertBlocks(blocks)
		if err == nil || !strings.Contains(err.Error(), "insert block 2 ") || !strings.Contains(err.Error(), "timestamp") {
			t.Fatalf("%s: %v, want block 2 refused for its timestamp", name, err)
		}
		if head := c.Head(); head.Number.Uint64() != 1 {
			t.Fatalf("%s: head %d, want block 1", name, head.Number)
		}
	}
	refused("no Denim", blocks, nil)
	// Before Denim: two blocks in one second, without BaseTime deposits (a chain that does
	// not run Denim writes them).
	later := uint64(t0 + 1)
	early := sealDenim(t, denimChain(t, 0, nil), [][2]int{{t0, -1}, {t0, -1}})
	refused("Denim after the blocks' second", early, &later)

	// From the activation on: the block before it is at t0 - 1, the first Denim block at t0
	// and the next one shares its second.
	act := uint64(t0)
	src2 := denimChain(t, act, &act)
	crossing := sealDenim(t, src2, [][2]int{{t0 - 1, -1}, {t0, 0}, {t0, 200}})
	dst2 := denimChain(t, act, &act)
	if err := dst2.InsertBlocks(crossing); err != nil {
		t.Fatal(err)
	}
	if head := dst2.Head(); head.Hash() != crossing[2].Hash() {
		t.Fatalf("head %d, want block 3", head.Number)
	}
}

// TestDenimBodyRules inserts blocks that break Denim's rules into a chain that runs Denim: each
// is refused, and the chain keeps its head.
func TestDenimBodyRules(t *testing.T) {
	const t0 = 1_800_000_000
	act := uint64(t0)
	cases := []struct {
		name  string
		times [][2]int
		bad   int // the index of the block refused
		words string
	}{
		{"no BaseTime deposit", [][2]int{{t0, 0}, {t0, -1}}, 1, "no BaseTime deposit"},
		{"a skipped slot", [][2]int{{t0, 0}, {t0, 400}}, 1, "want its parent's"},
		{"first Denim block not at part 0", [][2]int{{t0 - 1, -1}, {t0, 200}}, 1, "want 0"},
		{"a part BaseTime refuses", [][2]int{{t0, 0}, {t0, 300}}, 1, "part 300"},
		{"a BaseTime deposit before Denim", [][2]int{{t0 - 2, 0}}, 0, "sets BaseTime's part"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			blocks := sealDenimChecked(t, denimChain(t, act, &act), c.times, false)
			dst := denimChain(t, act, &act)
			err := dst.InsertBlocks(blocks)
			if err == nil || !errors.Is(err, oprollup.ErrDenimBody) || !strings.Contains(err.Error(), c.words) {
				t.Fatalf("insert: %v, want %q", err, c.words)
			}
			if head := dst.Head(); head.Number.Uint64() != uint64(c.bad) {
				t.Fatalf("head %d, want %d", head.Number, c.bad)
			}
		})
	}
	t.Run("failed BaseTime deposit", func(t *testing.T) {
		// BaseTime's proxy pointing at an implementation that reverts every call: the chain
		// installs none over it (the slot is set), and the deposit fails.
		g := oprollup.DevGenesis(chain.DefaultChainID, nil, nil)
		if err := oprollup.InstallBaseTime(g.Alloc); err != nil {
			t.Fatal(err)
		}
		g.Alloc[oprollup.BaseTimeImplementation] = types.Account{Code: []byte{0x60, 0x00, 0x60, 0x00, 0xfd}} // REVERT(0, 0)
		src, dst := openDenim(t, g, &act), openDenim(t, g, &act)
		blocks := sealDenimChecked(t, src, [][2]int{{t0, 0}}, false)
		if r := src.Receipts(blocks[0].Hash()); r[1].Status != types.ReceiptStatusFailed {
			t.Fatal("the deposit did not fail")
		}
		if err := dst.InsertBlocks(blocks); !errors.Is(err, oprollup.ErrDenimBody) {
			t.Fatalf("insert: %v, want the failed deposit refused", err)
		}
	})
}

// TestDenimInstallsBaseTime inserts into a chain that runs Denim, whose genesis has BaseTime's
// proxy without its implementation (a chain created before Denim), the blocks of another that
// crossed Denim: the chain's processor installs the implementation before the first Denim
// block's transactions, as Base's node does, so its BaseTime deposit succeeds as it did where
// the block was built, and the state roots agree.
func TestDenimInstallsBaseTime(t *testing.T) {
	const t0 = 1_800_000_000
	act := uint64(t0)
	g := oprollup.DevGenesis(chain.DefaultChainID, nil, nil)
	src, dst := openDenim(t, g, &act), openDenim(t, g, &act)
	blocks := sealDenim(t, src, [][2]int{{t0 - 2, -1}, {t0, 0}, {t0, 200}})
	if err := dst.InsertBlocks(blocks); err != nil {
		t.Fatalf("insert: %v", err)
	}
	if head := dst.Head(); head.Hash() != blocks[2].Hash() {
		t.Fatalf("head %d, want %d", head.Number, blocks[2].NumberU64())
	}
	before, err := dst.StateAt(blocks[0].Header())
	if err != nil {
		t.Fatal(err)
	}
	after, err := dst.StateAt(blocks[1].Header())
	if err != nil {
		t.Fatal(err)
	}
	if len(before.GetCode(oprollup.BaseTimeImplementation)) != 0 || string(after.GetCode(oprollup.BaseTimeImplementation)) != string(oprollup.BaseTimeCode()) {
		t.Fatal("BaseTime's implementation is not installed at the first Denim block, and only there")
	}
}
