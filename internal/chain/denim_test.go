package chain_test

import (
	"context"
	"strings"
	"testing"

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
	c, err := chain.Open(chain.Config{DataDir: t.TempDir(), Genesis: g, Denim: denim})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// sealDenim seals on c one block per entry of times (header timestamp and millisecond part;
// a negative part: no BaseTime deposit), each opening with the L1-attributes deposit and,
// when it has a part, the BaseTime deposit. The blocks are written by the sequencer's path,
// which does not verify headers.
func sealDenim(t *testing.T, c *chain.Chain, times [][2]int) []*types.Block {
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
			if r.Status != types.ReceiptStatusSuccessful {
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

	refused := func(name string, denim *uint64) {
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
	refused("no Denim", nil)
	later := uint64(t0 + 1)
	refused("Denim after the blocks' second", &later)

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
