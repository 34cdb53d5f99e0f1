package sequencer

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"

	"github.com/flashrpc/flashrpc/internal/chain"
	"github.com/flashrpc/flashrpc/internal/preconf"
	"github.com/flashrpc/flashrpc/internal/txpool"
)

// The sequencer runs in manual mode (zero intervals): each test drives it as dev_preconfirm
// and dev_seal do, on a real chain, with an injected clock.

var genesisTime = time.Unix(1_800_000_000, 0)

type testSeq struct {
	*Sequencer
	chain *chain.Chain
	pre   *preconf.Preconf
	pool  *txpool.Pool
	keys  []*ecdsa.PrivateKey
	now   time.Time
}

func newTestSeq(t *testing.T, limits txpool.Config) *testSeq {
	t.Helper()
	return newTestSeqTimed(t, limits, Config{}, wallClock{})
}

// newTestSeqTimed is newTestSeq with the timing of cfg (its Now is the test's) and the timer
// loop's clock. On a stepped clock the timer does not stage (stage.go): the clock hands every
// sleep to the test, and staging's rounds would add theirs (newStagingSeq keeps them).
func newTestSeqTimed(t *testing.T, limits txpool.Config, cfg Config, ticks loopClock) *testSeq {
	t.Helper()
	step := defaultStageStep
	if _, stepped := ticks.(*stepClock); stepped {
		step = 0
	}
	return newTestSeqStaging(t, limits, cfg, ticks, step)
}

// newTestSeqStaging is newTestSeqTimed with the timer's staging step.
func newTestSeqStaging(t *testing.T, limits txpool.Config, cfg Config, ticks loopClock, stageStep time.Duration) *testSeq {
	t.Helper()
	ts := &testSeq{now: genesisTime}
	var funded []common.Address
	for i := range 4 {
		key, err := crypto.ToECDSA(crypto.Keccak256([]byte{byte(i + 1)}))
		if err != nil {
			t.Fatal(err)
		}
		ts.keys = append(ts.keys, key)
		funded = append(funded, crypto.PubkeyToAddress(key.PublicKey))
	}
	c, err := chain.Open(chain.Config{DataDir: t.TempDir(), Genesis: chain.DevGenesis(chain.DefaultChainID, funded)})
	if err != nil {
		t.Fatal(err)
	}
	ts.chain, ts.pre = c, preconf.New(c)
	ts.pool = txpool.New(c.Config(), limits)
	cfg.Now = func() time.Time { return ts.now }
	ts.Sequencer = newWithClock(cfg, c, ts.pre, ts.pool, ticks, stageStep)
	if err := ts.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ts.Close()
		c.Close()
	})
	return ts
}

func (ts *testSeq) addr(i int) common.Address { return crypto.PubkeyToAddress(ts.keys[i].PublicKey) }

// tx signs a transfer of value wei from account i with this nonce and tip (gwei).
func (ts *testSeq) tx(t *testing.T, i int, nonce, tipGwei uint64, value *big.Int) *types.Transaction {
	t.Helper()
	to := common.Address{0xee}
	tx, err := types.SignNewTx(ts.keys[i], types.LatestSigner(ts.chain.Config()), &types.DynamicFeeTx{
		ChainID: ts.chain.Config().ChainID, Nonce: nonce, To: &to, Value: value, Gas: params.TxGas,
		GasFeeCap: big.NewInt(100 * params.GWei), GasTipCap: new(big.Int).SetUint64(tipGwei * params.GWei),
	})
	if err != nil {
		t.Fatal(err)
	}
	return tx
}

// send adds transactions to the pool as eth_sendRawTransaction does.
func (ts *testSeq) send(t *testing.T, txs ...*types.Transaction) {
	t.Helper()
	for _, tx := range txs {
		if err := ts.pool.Add(tx, ts.view()); err != nil {
			t.Fatalf("send %d/%d: %v", tx.Nonce(), tx.GasTipCap(), err)
		}
	}
}

func (ts *testSeq) view() txpool.View { return ts.poolView(ts.pre.Current()) }

func (ts *testSeq) preconfirm(t *testing.T) *preconf.Snapshot {
	t.Helper()
	snap, err := ts.Preconfirm(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return snap
}

func (ts *testSeq) seal(t *testing.T) *types.Block {
	t.Helper()
	block, err := ts.Seal(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return block
}

// wantTxs checks that txs are exactly want, in order.
func wantTxs(t *testing.T, what string, txs []*types.Transaction, want ...*types.Transaction) {
	t.Helper()
	ok := len(txs) == len(want)
	for i := 0; ok && i < len(txs); i++ {
		ok = txs[i].Hash() == want[i].Hash()
	}
	if !ok {
		t.Fatalf("%s: %v, want %v", what, hashes(txs), hashes(want))
	}
}

func hashes(txs []*types.Transaction) []string {
	out := make([]string, len(txs))
	for i, tx := range txs {
		out[i] = tx.Hash().TerminalString()
	}
	return out
}

// TestFeeOrdering: highest effective tip first, each sender's transactions in nonce order, and
// equal tips in arrival order.
func TestFeeOrdering(t *testing.T) {
	t.Parallel()
	ts := newTestSeq(t, txpool.Config{})
	a0, a1 := ts.tx(t, 0, 0, 2, nil), ts.tx(t, 0, 1, 9, nil)
	b0 := ts.tx(t, 1, 0, 3, nil)
	c0 := ts.tx(t, 2, 0, 1, nil)
	d0 := ts.tx(t, 3, 0, 1, nil) // same tip as c0, created after it
	ts.send(t, c0, a1, d0, a0, b0)
	snap := ts.preconfirm(t)
	wantTxs(t, "pre-confirmed", snap.Block.Transactions(), b0, a0, a1, c0, d0)
	if ts.pool.Len() != 0 {
		t.Fatalf("pool keeps %d transactions", ts.pool.Len())
	}
}

// TestNonceGap: a transaction after a gap waits, queued, and joins the next pre-confirmation
// once the gap is filled.
func TestNonceGap(t *testing.T) {
	t.Parallel()
	ts := newTestSeq(t, txpool.Config{})
	a0, a1, a2 := ts.tx(t, 0, 0, 1, nil), ts.tx(t, 0, 1, 1, nil), ts.tx(t, 0, 2, 1, nil)
	ts.send(t, a0, a2)
	snap := ts.preconfirm(t)
	wantTxs(t, "first pre-confirmation", snap.Block.Transactions(), a0)
	pending, queued := ts.pool.ContentFrom(ts.addr(0))
	wantTxs(t, "pending", pending)
	wantTxs(t, "queued", queued, a2)

	ts.send(t, a1)
	snap = ts.preconfirm(t)
	wantTxs(t, "second pre-confirmation", snap.Block.Transactions()[snap.FirstNew:], a1, a2)
	if ts.pool.Len() != 0 {
		t.Fatalf("pool keeps %d transactions", ts.pool.Len())
	}
}

// TestNeverIncludable: transactions that can never be included leave the pool instead of
// being tried at every pre-confirmation: one whose sender can no longer pay for it, one whose
// nonce another transaction used.
func TestNeverIncludable(t *testing.T) {
	t.Parallel()
	ts := newTestSeq(t, txpool.Config{})

	// Account 0 spends all but 0.001 ETH in its first transaction: its second, which alone
	// it could pay for, it no longer can.
	balance := chain.DevAccountBalance
	fee := new(big.Int).Mul(new(big.Int).SetUint64(params.TxGas), big.NewInt(100*params.GWei))
	spend := new(big.Int).Sub(balance, fee)
	spend.Sub(spend, big.NewInt(params.Ether/1000))
	a0, a1 := ts.tx(t, 0, 0, 1, spend), ts.tx(t, 0, 1, 1, big.NewInt(params.Ether))

	// Account 1's nonce 0 is taken by b0; b0x, sent against the state from before b0 was
	// pre-confirmed, cannot land any more.
	stale := ts.view()
	b0, b0x := ts.tx(t, 1, 0, 1, nil), ts.tx(t, 1, 0, 2, big.NewInt(1))
	ts.send(t, a0, a1, b0)
	snap := ts.preconfirm(t)
	wantTxs(t, "pre-confirmed", snap.Block.Transactions(), a0, b0)
	if ts.pool.Get(a1.Hash()) != nil {
		t.Fatal("an unpayable transaction stays in the pool")
	}
	if err := ts.pool.Add(b0x, stale); err != nil {
		t.Fatalf("add with a stale view: %v", err)
	}
	snap = ts.preconfirm(t)
	wantTxs(t, "second pre-confirmation", snap.Block.Transactions()[snap.FirstNew:])
	if n := ts.pool.Len(); n != 0 {
		t.Fatalf("pool keeps %d transactions", n)
	}
}

// TestArrivalBeforeSeal: a transaction that arrives after the last pre-confirmation of a block
// is not sealed into it (sealing takes what was pre-confirmed); it opens the next block's
// pre-confirmations.
func TestArrivalBeforeSeal(t *testing.T) {
	t.Parallel()
	ts := newTestSeq(t, txpool.Config{})
	a0, b0 := ts.tx(t, 0, 0, 1, nil), ts.tx(t, 1, 0, 1, nil)
	ts.send(t, a0)
	ts.preconfirm(t)
	ts.send(t, b0)
	block := ts.seal(t)
	wantTxs(t, "sealed block 1", block.Transactions(), a0)
	if ts.pool.Get(b0.Hash()) == nil {
		t.Fatal("the late transaction left the pool at sealing")
	}
	snap := ts.preconfirm(t)
	if snap.Number() != 2 || snap.Index != 1 {
		t.Fatalf("pre-confirmation %d of block %d, want 1 of block 2", snap.Index, snap.Number())
	}
	wantTxs(t, "block 2", snap.Block.Transactions(), b0)
	wantTxs(t, "sealed block 2", ts.seal(t).Transactions(), b0)
}

// TestSealSelected: dev_seal with a transaction list seals those pre-confirmed transactions;
// the others are dropped for good, and their senders' later transactions wait for the nonce.
func TestSealSelected(t *testing.T) {
	t.Parallel()
	ts := newTestSeq(t, txpool.Config{})
	ctx := context.Background()
	a0, a1, b0 := ts.tx(t, 0, 0, 1, nil), ts.tx(t, 0, 1, 1, nil), ts.tx(t, 1, 0, 1, nil)
	ts.send(t, a0, b0)
	ts.preconfirm(t)
	ts.send(t, a1)

	if _, err := ts.SealSelected(ctx, []common.Hash{b0.Hash(), a1.Hash()}); !errors.Is(err, ErrNotPreconfirmed) {
		t.Fatalf("sealing a transaction that was not pre-confirmed: %v", err)
	}
	if _, err := ts.SealSelected(ctx, []common.Hash{b0.Hash(), b0.Hash()}); err == nil {
		t.Fatal("a transaction listed twice was sealed")
	}
	block, err := ts.SealSelected(ctx, []common.Hash{b0.Hash()})
	if err != nil {
		t.Fatal(err)
	}
	wantTxs(t, "sealed", block.Transactions(), b0)
	if ts.pool.Get(a0.Hash()) != nil {
		t.Fatal("the left-out transaction came back to the pool")
	}
	// a1 followed a0, whose nonce is free again: it waits, queued.
	pending, queued := ts.pool.ContentFrom(ts.addr(0))
	wantTxs(t, "pending of account 0", pending)
	wantTxs(t, "queued of account 0", queued, a1)

	a0again := ts.tx(t, 0, 0, 2, nil)
	ts.send(t, a0again)
	snap := ts.preconfirm(t)
	wantTxs(t, "next block", snap.Block.Transactions(), a0again, a1)
}

// TestFloodDoesNotBlockOthers: one sender filling the executable slots and its own queue does
// not keep another sender's transaction from the next pre-confirmation.
func TestFloodDoesNotBlockOthers(t *testing.T) {
	t.Parallel()
	ts := newTestSeq(t, txpool.Config{GlobalSlots: 32, AccountSlots: 4, AccountQueue: 8})
	for n := uint64(0); n < 32; n++ {
		ts.send(t, ts.tx(t, 0, n, 5, nil))
	}
	refused := 0
	for n := uint64(100); n < 200; n++ {
		if err := ts.pool.Add(ts.tx(t, 0, n, 5, nil), ts.view()); err != nil {
			refused++
		}
	}
	if refused != 100-8 {
		t.Fatalf("%d future-nonce transactions refused, want 92", refused)
	}
	b0 := ts.tx(t, 1, 0, 1, nil)
	ts.send(t, b0)
	snap := ts.preconfirm(t)
	if _, ok := snap.TxIndex(b0.Hash()); !ok {
		t.Fatal("the other sender's transaction was not pre-confirmed")
	}
}

// TestTimestamps: blocks take the clock's whole seconds, raised to parent+1 when the clock has
// not moved on.
func TestTimestamps(t *testing.T) {
	t.Parallel()
	ts := newTestSeq(t, txpool.Config{})
	ts.now = genesisTime.Add(5 * time.Second) // read when block 2 opens
	if got := ts.seal(t).Time(); got != uint64(genesisTime.Unix()) {
		t.Fatalf("block 1 at %d, want the clock's %d", got, genesisTime.Unix())
	}
	if got := ts.seal(t).Time(); got != uint64(genesisTime.Unix())+5 {
		t.Fatalf("block 2 at %d, want %d", got, genesisTime.Unix()+5)
	}
	if got := ts.seal(t).Time(); got != uint64(genesisTime.Unix())+6 {
		t.Fatalf("block 3 at %d, want parent+1 = %d", got, genesisTime.Unix()+6)
	}
}
