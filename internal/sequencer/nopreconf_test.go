package sequencer_test

import (
	"context"
	"errors"
	"math/big"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"

	"github.com/flashrpc/flashrpc/internal/chain"
	"github.com/flashrpc/flashrpc/internal/flashblocks"
	"github.com/flashrpc/flashrpc/internal/oprollup"
	"github.com/flashrpc/flashrpc/internal/preconf"
	"github.com/flashrpc/flashrpc/internal/sequencer"
	"github.com/flashrpc/flashrpc/internal/txpool"
)

// hiddenPoolView is what the pool validates against on a chain without pre-confirmations:
// the writer's block in progress, which the View carries hidden (Current is nil there).
func hiddenPoolView(t testing.TB, c *chain.Chain, p *preconf.Preconf) txpool.View {
	t.Helper()
	v := p.View()
	if !v.Hidden || v.Pending == nil {
		t.Fatalf("view: hidden %v, block in progress %v; want a hidden block in progress", v.Hidden, v.Pending != nil)
	}
	return txpool.StateView(c.Config(), v.Pending.Header(), v.Pending.ReadState)
}

// TestNoPreconfirmations drives an OP Stack chain without pre-confirmations by hand, with a
// per-flashblock budget configured that it must not apply: nothing is ever published to the
// OnSnapshot listeners, the transactions wait in the pool until a seal takes them, a 10M gas
// transaction on a 60M chain goes into the block at once (a budget of 10 flashblocks would
// hold it to 6M), and building a pre-confirmation or sealing a chosen list is refused.
func TestNoPreconfirmations(t *testing.T) {
	ctx := context.Background()
	n := newOPNode(t, 60_000_000, 4, func(c *sequencer.Config) { c.NoPreconfirmations, c.Flashblocks = true, 10 })
	send := func(i int, nonce uint64, to *common.Address, gas uint64, data []byte) *types.Transaction {
		t.Helper()
		cfg := n.chain.Config()
		tx, err := types.SignNewTx(n.keys[i], types.LatestSigner(cfg), &types.DynamicFeeTx{
			ChainID: cfg.ChainID, Nonce: nonce, To: to, Gas: gas, Data: data,
			GasFeeCap: big.NewInt(params.GWei), GasTipCap: big.NewInt(1),
		})
		if err != nil {
			t.Fatal(err)
		}
		if err := n.pool.Add(tx, hiddenPoolView(t, n.chain, n.pre)); err != nil {
			t.Fatalf("pool: %v", err)
		}
		return tx
	}
	if cur := n.pre.Current(); cur != nil {
		t.Fatalf("Current after the first Open: block %d index %d, want nil", cur.Number(), cur.Index)
	}
	if _, err := n.seq.Preconfirm(ctx); !errors.Is(err, sequencer.ErrNoPreconfirmations) {
		t.Fatalf("Preconfirm: %v, want ErrNoPreconfirmations", err)
	}

	burner := crypto.CreateAddress(crypto.PubkeyToAddress(n.keys[0].PublicKey), 0)
	deploy := send(0, 0, nil, 100_000, initCode(burnerRuntime))
	if n.pool.Get(deploy.Hash()) == nil {
		t.Fatal("the deployment left the pool before any seal")
	}
	if _, _, ok := n.pre.View().Preconfirmed(deploy.Hash()); ok {
		t.Fatal("the deployment is in the block in progress before any seal")
	}
	block, err := n.seq.Seal(ctx)
	if err != nil {
		t.Fatal(err)
	}
	wantFlashblock(t, "block 1's user transactions", block.Transactions()[1:], deploy)

	big := send(0, 1, &burner, 10_000_000, nil) // uses all its gas
	small := send(1, 0, &common.Address{0xaa}, params.TxGas, nil)
	if _, err := n.seq.SealSelected(ctx, []common.Hash{big.Hash()}); !errors.Is(err, sequencer.ErrNoPreconfirmations) {
		t.Fatalf("SealSelected: %v, want ErrNoPreconfirmations", err)
	}
	blocks, err := n.seq.Mine(ctx, 2, 0)
	if err != nil {
		t.Fatal(err)
	}
	wantFlashblock(t, "block 2's user transactions", blocks[0].Transactions()[1:], big, small)
	if used := blocks[0].GasUsed(); used < 10_000_000 {
		t.Fatalf("block 2 used %d gas, want the 10M transaction in it", used)
	}
	if got := len(blocks[1].Transactions()); got != 1 {
		t.Fatalf("block 3 has %d transactions, want the L1-attributes deposit alone", got)
	}
	if len(n.snaps) != 0 {
		t.Fatalf("%d pre-confirmations reached the OnSnapshot listeners, want none", len(n.snaps))
	}
}

// TestNoPreconfirmationsDenimTimer runs the timer at Base's cadence since Denim, a block every
// 200 ms and no pre-confirmations, with a pre-confirmation interval configured that it must
// ignore: a transaction is sealed, the blocks follow the 200 ms schedule, no listener hears
// of a pre-confirmation, and each block was built once (the 50 ms interval would build four
// times a block).
func TestNoPreconfirmationsDenimTimer(t *testing.T) {
	zero := uint64(0)
	key, _ := crypto.ToECDSA(crypto.Keccak256([]byte("no pre-confirmations")))
	from := crypto.PubkeyToAddress(key.PublicKey)
	g, err := oprollup.DevDenimGenesis(1337, []common.Address{from}, big.NewInt(params.Ether), 0)
	if err != nil {
		t.Fatal(err)
	}
	c, err := chain.Open(chain.Config{Genesis: g, Denim: &zero})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := c.Close(); err != nil {
			t.Error(err)
		}
	})
	pre, pool := preconf.New(c), txpool.New(c.Config(), txpool.Config{})
	var published, builds atomic.Int64
	pre.OnSnapshot(func(*preconf.Snapshot) { published.Add(1) })
	seq := sequencer.New(sequencer.Config{
		BlockTime: 200 * time.Millisecond, PreconfInterval: 50 * time.Millisecond, NoPreconfirmations: true,
		L1: &oprollup.DevL1{GenesisTime: g.Timestamp}, Denim: &zero,
		ObserveBuild: func(time.Duration) { builds.Add(1) },
	}, c, pre, pool)
	if err := seq.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer seq.Close()
	tx, err := types.SignNewTx(key, types.LatestSigner(c.Config()), &types.DynamicFeeTx{
		ChainID: c.Config().ChainID, To: &common.Address{0xee}, Value: big.NewInt(1), Gas: params.TxGas,
		GasFeeCap: big.NewInt(params.GWei), GasTipCap: big.NewInt(1),
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := pool.Add(tx, hiddenPoolView(t, c, pre)); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second) // a hang guard, not a measurement
	sealed := func() bool { _, _, ok := c.Transaction(tx.Hash()); return ok }
	for c.Head().Number.Uint64() < 6 || !sealed() {
		if time.Now().After(deadline) {
			t.Fatalf("head %d, transaction sealed %v after 20 s", c.Head().Number, sealed())
		}
		time.Sleep(20 * time.Millisecond)
	}
	seq.Close()
	head := c.Head().Number.Uint64()
	if b := builds.Load(); b > int64(head)+1 {
		t.Fatalf("%d builds for %d blocks, want one a block", b, head)
	}
	if p := published.Load(); p != 0 {
		t.Fatalf("%d pre-confirmations reached the OnSnapshot listeners, want none", p)
	}
	var prev uint64
	for i := uint64(1); i <= head; i++ {
		b := c.BlockByNumber(i)
		ms, ok := oprollup.BlockTimeMs(b.Time(), b.Transactions())
		if !ok || (i > 1 && ms != prev+oprollup.DenimBlockTimeMs) {
			t.Fatalf("block %d at %d ms (%v), parent at %d", i, ms, ok, prev)
		}
		prev = ms
	}
}

// TestNoPreconfirmationsFeed wires a flashblocks feed to a chain without pre-confirmations as
// a node does (an OnSnapshot listener publishing FeedPayload) and connects a consumer: the
// connection is accepted, and while blocks with transactions are sealed the consumer gets
// nothing (the first message it reads is one the test published itself afterwards).
func TestNoPreconfirmationsFeed(t *testing.T) {
	ctx := context.Background()
	n := newOPNode(t, 0, 2, func(c *sequencer.Config) { c.NoPreconfirmations = true })
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	pub := flashblocks.NewPublisher(flashblocks.PublisherConfig{})
	go pub.Serve(ln)
	defer pub.Shutdown(ctx)
	n.pre.OnSnapshot(func(snap *preconf.Snapshot) {
		p, err := sequencer.FeedPayload(snap, flashblocks.FormatBase)
		if err == nil {
			err = pub.Publish(p)
		}
		if err != nil {
			t.Errorf("publish: %v", err)
		}
	})
	consumer, err := flashblocks.Dial(ctx, "ws://"+ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer consumer.Close()
	for deadline := time.Now().Add(10 * time.Second); pub.Consumers() != 1; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) { // a hang guard, not a measurement
			t.Fatalf("%d consumers, want the one connected", pub.Consumers())
		}
	}
	for i := range 3 {
		cfg := n.chain.Config()
		tx, err := types.SignNewTx(n.keys[0], types.LatestSigner(cfg), &types.DynamicFeeTx{
			ChainID: cfg.ChainID, Nonce: uint64(i), To: &common.Address{0x77}, Value: big.NewInt(1), Gas: params.TxGas,
			GasFeeCap: big.NewInt(params.GWei), GasTipCap: big.NewInt(1),
		})
		if err != nil {
			t.Fatal(err)
		}
		if err := n.pool.Add(tx, hiddenPoolView(t, n.chain, n.pre)); err != nil {
			t.Fatal(err)
		}
		if _, err := n.seq.Mine(ctx, 1, 0); err != nil {
			t.Fatal(err)
		}
	}
	sentinel := &flashblocks.Payload{PayloadID: flashblocks.PayloadID{0xff}, Base: &flashblocks.Base{}, Metadata: flashblocks.Metadata{BlockNumber: 999}}
	if err := pub.Publish(sentinel); err != nil {
		t.Fatal(err)
	}
	readCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	got, err := consumer.Next(readCtx)
	if err != nil {
		t.Fatal(err)
	}
	if got.Metadata.BlockNumber != 999 {
		t.Fatalf("the consumer got a flashblock of block %d index %d, want nothing before the test's own", got.Metadata.BlockNumber, got.Index)
	}
}
