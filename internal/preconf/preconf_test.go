package preconf_test

import (
	"context"
	"errors"
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"

	"github.com/flashrpc/flashrpc/internal/chain"
	"github.com/flashrpc/flashrpc/internal/preconf"
)

var (
	testKey, _ = crypto.HexToECDSA("ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80")
	testAddr   = crypto.PubkeyToAddress(testKey.PublicKey)
)

func openChain(t testing.TB) *chain.Chain {
	t.Helper()
	c, err := chain.Open(chain.Config{DataDir: t.TempDir(), Genesis: chain.DevGenesis(chain.DefaultChainID, []common.Address{testAddr})})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func transfer(t testing.TB, c *chain.Chain, nonce uint64, to common.Address) *types.Transaction {
	t.Helper()
	tx, err := types.SignNewTx(testKey, types.LatestSigner(c.Config()), &types.DynamicFeeTx{
		ChainID: c.Config().ChainID, Nonce: nonce, To: &to, Value: big.NewInt(1),
		Gas: params.TxGas, GasFeeCap: big.NewInt(10 * params.GWei), GasTipCap: big.NewInt(params.GWei),
	})
	if err != nil {
		t.Fatal(err)
	}
	return tx
}

// TestSealedBlockIsLastPreconfirmation checks the central promise: the sealed block is exactly the
// last pre-confirmed partial block (same hash), and pending state sees pre-confirmed transactions.
func TestSealedBlockIsLastPreconfirmation(t *testing.T) {
	ctx := context.Background()
	c := openChain(t)
	p := preconf.New(c)
	head := c.Head()
	attrs := preconf.NextAttributes(c.Config(), head, head.Time+1, common.Address{0xfe}, []byte("flashrpc"))
	snap0, err := p.Open(ctx, attrs, preconf.PublishOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if snap0.Index != 0 || len(snap0.Block.Transactions()) != 0 || snap0.Number() != 1 {
		t.Fatalf("index 0: got index %d, %d txs, number %d", snap0.Index, len(snap0.Block.Transactions()), snap0.Number())
	}
	var last *preconf.Snapshot
	to := common.Address{0xaa}
	for i := range 3 {
		b, err := p.Begin()
		if err != nil {
			t.Fatal(err)
		}
		if err := b.Add(ctx, transfer(t, c, uint64(i), to)); err != nil {
			t.Fatal(err)
		}
		// A nonce that was just used must be refused without changing anything.
		if err := b.Add(ctx, transfer(t, c, uint64(i), common.Address{0xbb})); !errors.Is(err, core.ErrNonceTooLow) {
			t.Fatalf("replayed nonce: got %v, want nonce too low", err)
		}
		if last, err = b.Commit(ctx, preconf.PublishOptions{}); err != nil {
			t.Fatal(err)
		}
		if last.Index != i+1 || len(last.Block.Transactions()) != i+1 || last.FirstNew != i {
			t.Fatalf("pre-confirmation %d: index %d, %d txs, first new %d", i+1, last.Index, len(last.Block.Transactions()), last.FirstNew)
		}
		if last.Block.GasUsed() != uint64(i+1)*params.TxGas {
			t.Fatalf("cumulative gas used: got %d", last.Block.GasUsed())
		}
	}
	var bal *big.Int
	last.ReadState(func(st *state.StateDB) { bal = st.GetBalance(to).ToBig() })
	if bal.Cmp(big.NewInt(3)) != 0 {
		t.Fatalf("pending balance: got %v, want 3", bal)
	}
	if c.Head().Number.Uint64() != 0 {
		t.Fatal("the sealed chain moved before sealing")
	}
	sealed, err := p.Seal(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if sealed.Hash() != last.Block.Hash() {
		t.Fatalf("sealed hash %s != last pre-confirmed hash %s", sealed.Hash(), last.Block.Hash())
	}
	if c.Head().Hash() != sealed.Hash() || p.Current() != nil {
		t.Fatal("after sealing the head must be the sealed block and nothing in progress")
	}
}

// TestPublishAfter checks that a batch with a wait is assembled before the wait and published
// after it: while it waits, readers and listeners still see the previous pre-confirmation, and
// its Published time is taken after the wait.
func TestPublishAfter(t *testing.T) {
	ctx := context.Background()
	c := openChain(t)
	p := preconf.New(c)
	head := c.Head()
	snap0, err := p.Open(ctx, preconf.NextAttributes(c.Config(), head, head.Time+1, common.Address{0xfe}, nil), preconf.PublishOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var heard []*preconf.Snapshot
	p.OnSnapshot(func(s *preconf.Snapshot) { heard = append(heard, s) })
	b, err := p.Begin()
	if err != nil {
		t.Fatal(err)
	}
	tx := transfer(t, c, 0, common.Address{0xaa})
	if err := b.Add(ctx, tx); err != nil {
		t.Fatal(err)
	}
	var waited bool
	var whileWaiting time.Time
	wait := func() {
		waited = true
		if cur := p.Current(); cur != snap0 {
			t.Errorf("while waiting: the View's pending is index %d, want the previous one (0)", cur.Index)
		}
		if _, _, ok := p.View().Preconfirmed(tx.Hash()); ok {
			t.Error("while waiting: the batch's transaction is visible")
		}
		if len(heard) != 0 {
			t.Errorf("while waiting: listeners heard %d snapshots, want none", len(heard))
		}
		whileWaiting = time.Now()
	}
	snap1, err := b.Commit(ctx, preconf.PublishOptions{PublishAfter: wait})
	if err != nil {
		t.Fatal(err)
	}
	if !waited {
		t.Fatal("Commit did not call the wait")
	}
	if p.Current() != snap1 || len(heard) != 1 || heard[0] != snap1 {
		t.Fatalf("after Commit: pending %v, heard %d, want the new snapshot published once", p.Current() == snap1, len(heard))
	}
	if _, i, ok := p.View().Preconfirmed(tx.Hash()); !ok || i != 0 {
		t.Fatalf("after Commit: transaction at %d, %v; want 0, true", i, ok)
	}
	if snap1.Published.Before(whileWaiting) {
		t.Fatalf("Published %v is before the wait ended (%v)", snap1.Published, whileWaiting)
	}
	// A batch without a wait publishes as Commit always did.
	b, err = p.Begin()
	if err != nil {
		t.Fatal(err)
	}
	if snap2, err := b.Commit(ctx, preconf.PublishOptions{}); err != nil || p.Current() != snap2 || snap2.Index != 2 {
		t.Fatalf("a batch without a wait: %v, published %v", err, p.Current() == snap2)
	}
}
