package sequencer_test

import (
	"context"
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"

	"github.com/flashrpc/flashrpc/internal/sequencer"
)

// burnerRuntime is INVALID: a call uses all the gas it was given.
var burnerRuntime = []byte{0xfe}

// budgetNode is an OP Stack chain with a 60M gas limit and 10 flashblocks a block, so
// flashblock i may bring the block to 6M·i, with a gas burner deployed and sealed.
func budgetNode(t *testing.T) (*opNode, common.Address, []uint64) {
	t.Helper()
	n := newOPNode(t, 60_000_000, 4, func(c *sequencer.Config) { c.Flashblocks = 10 })
	burner := crypto.CreateAddress(crypto.PubkeyToAddress(n.keys[0].PublicKey), 0)
	n.send(t, 0, 0, nil, nil, 100_000, initCode(burnerRuntime))
	n.preconfirm(t)
	n.seal(t)
	return n, burner, []uint64{1, 0, 0, 0}
}

func (n *opNode) seal(t *testing.T) {
	t.Helper()
	n.now = n.now.Add(2 * time.Second)
	if _, err := n.seq.Seal(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// sendTip pools a call to to from key i with this gas and tip.
func (n *opNode) sendTip(t *testing.T, i int, nonce uint64, to common.Address, gas uint64, tip int64) *types.Transaction {
	t.Helper()
	cfg := n.chain.Config()
	tx, err := types.SignNewTx(n.keys[i], types.LatestSigner(cfg), &types.DynamicFeeTx{
		ChainID: cfg.ChainID, Nonce: nonce, To: &to, Gas: gas, GasFeeCap: big.NewInt(params.GWei), GasTipCap: big.NewInt(tip),
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := n.pool.Add(tx, n.view()); err != nil {
		t.Fatalf("pool: %v", err)
	}
	return tx
}

// flashblock pre-confirms and returns the user transactions of that pre-confirmation and its
// index.
func (n *opNode) flashblock(t *testing.T) (int, []*types.Transaction) {
	t.Helper()
	snap, err := n.seq.Preconfirm(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return snap.Index, snap.Block.Transactions()[snap.FirstNew:]
}

// TestFlashblockGasBudget: a transaction of 10M gas (all used) on a 60M chain cannot enter
// flashblock 1 (budget 6M) and lands in flashblock 2 (12M), ahead of a smaller one with a lower
// tip that came before it, which follows it in flashblock 2; a smaller one with a higher tip
// goes first.
func TestFlashblockGasBudget(t *testing.T) {
	n, burner, nonces := budgetNode(t)
	small := n.sendTip(t, 1, 0, common.Address{0xaa}, params.TxGas, 5) // arrived first, lower tip
	big := n.sendTip(t, 0, nonces[0], burner, 10_000_000, 100)         // 10M gas, all used
	first := n.sendTip(t, 2, 0, common.Address{0xbb}, 2_000_000, 1000) // higher tip, fits 6M
	i, txs := n.flashblock(t)
	if i != 1 {
		t.Fatalf("index %d", i)
	}
	wantFlashblock(t, "flashblock 1", txs, first)
	i, txs = n.flashblock(t)
	wantFlashblock(t, "flashblock 2", txs, big, small)
	if i != 2 {
		t.Fatalf("index %d", i)
	}
	snap := n.pre.Current()
	if used := snap.Receipts[len(snap.Receipts)-2].GasUsed; used != 10_000_000 {
		t.Fatalf("the big transaction used %d gas", used)
	}
	if snap.Block.GasUsed() > 12_000_000 {
		t.Fatalf("flashblock 2 brought the block to %d gas, over 12M", snap.Block.GasUsed())
	}
}

// TestFlashblockBudgetCarriesForward: flashblocks 1 and 2 left empty, flashblock 3 may take
// the block to 18M: three 5.9M transactions beside the L1-attributes deposit (a budget of 6M a
// flashblock would take one).
func TestFlashblockBudgetCarriesForward(t *testing.T) {
	n, burner, nonces := budgetNode(t)
	for range 2 {
		if _, txs := n.flashblock(t); len(txs) != 0 {
			t.Fatalf("%d transactions in an empty flashblock", len(txs))
		}
	}
	var sent []*types.Transaction
	for i := range 3 {
		sent = append(sent, n.sendTip(t, i, nonces[i], burner, 5_900_000, int64(100-i)))
	}
	sent = append(sent, n.sendTip(t, 3, 0, burner, 5_900_000, 1)) // the fourth waits for flashblock 4
	i, txs := n.flashblock(t)
	if i != 3 {
		t.Fatalf("index %d", i)
	}
	wantFlashblock(t, "flashblock 3", txs, sent[:3]...)
	_, txs = n.flashblock(t)
	wantFlashblock(t, "flashblock 4", txs, sent[3])
}

// TestFlashblockBudgetLastFlashblock: from flashblock N on the whole gas limit is available,
// and a transaction that does not fit the block's remaining gas waits for the next block.
func TestFlashblockBudgetLastFlashblock(t *testing.T) {
	n, burner, nonces := budgetNode(t)
	for range 9 {
		n.flashblock(t)
	}
	var sent []*types.Transaction
	for i := range 4 {
		sent = append(sent, n.sendTip(t, i, nonces[i], burner, 15_000_000, int64(100-i)))
	}
	i, txs := n.flashblock(t)
	if i != 10 {
		t.Fatalf("index %d", i)
	}
	wantFlashblock(t, "flashblock 10", txs, sent[:3]...) // 45M of 60M; 15M more would not fit beside the deposit
	n.seal(t)
	_, txs = n.flashblock(t)
	wantFlashblock(t, "next block's flashblock 1", txs) // 15M > 6M: waits
	_, txs = n.flashblock(t)
	wantFlashblock(t, "next block's flashblock 2", txs) // 15M + the L1-attributes deposit > 12M
	_, txs = n.flashblock(t)
	wantFlashblock(t, "next block's flashblock 3", txs, sent[3])
}

func wantFlashblock(t *testing.T, what string, got []*types.Transaction, want ...*types.Transaction) {
	t.Helper()
	var g, w []common.Hash
	for _, tx := range got {
		g = append(g, tx.Hash())
	}
	for _, tx := range want {
		w = append(w, tx.Hash())
	}
	if len(g) != len(w) {
		t.Fatalf("%s: %d transactions %v, want %d %v", what, len(g), g, len(w), w)
	}
	for i := range g {
		if g[i] != w[i] {
			t.Fatalf("%s: %v, want %v", what, g, w)
		}
	}
}
