package preconf_test

import (
	"context"
	"crypto/ecdsa"
	"encoding/binary"
	"errors"
	"math/big"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"

	"github.com/flashrpc/flashrpc/internal/chain"
	"github.com/flashrpc/flashrpc/internal/oprollup"
	"github.com/flashrpc/flashrpc/internal/preconf"
	"github.com/flashrpc/flashrpc/internal/sequencer"
	"github.com/flashrpc/flashrpc/internal/txpool"
)

// TestSealAsyncWriteFailsDropped checks what the Preconf keeps of the blocks a failed write
// drops: the sealed block's transactions, then those of the block built on it, in order, once.
func TestSealAsyncWriteFailsDropped(t *testing.T) {
	ctx := context.Background()
	c := openChain(t)
	p := preconf.New(c)
	hold := newHoldWrites(t, 1)
	hold.fail = errors.New("no space left on device")
	openNext(t, p, c)
	tx0, tx1, tx2 := transfer(t, c, 0, common.Address{1}), transfer(t, c, 1, common.Address{2}), transfer(t, c, 2, common.Address{3})
	preconfirm(t, p, tx0)
	preconfirm(t, p, tx1)
	if _, err := p.SealAsync(ctx); err != nil {
		t.Fatal(err)
	}
	<-hold.started
	if got := p.TakeDropped(); len(got) != 0 {
		t.Fatalf("dropped %d transactions while the write runs", len(got))
	}
	openNext(t, p, c) // block 2, on block 1
	preconfirm(t, p, tx2)
	hold.release(1)
	if err := p.WaitWritten(); !errors.Is(err, hold.fail) {
		t.Fatalf("WaitWritten: %v, want the write's error", err)
	}
	got := p.TakeDropped()
	if want := []*types.Transaction{tx0, tx1, tx2}; !sameHashes(got, want) {
		t.Fatalf("dropped %v, want %v", hashes(got), hashes(want))
	}
	if again := p.TakeDropped(); len(again) != 0 {
		t.Fatalf("dropped again: %v", hashes(again))
	}
}

// TestSealAsyncWriteFailsRetracts fails the chain write of block 1 while block 2 pre-confirms
// on top of it and checks that the pre-confirmed logs of both blocks are retracted to the
// OnRetract listeners: their transactions are pre-confirmed again later, so a log subscriber
// must see each log removed before it sees it a second time.
func TestSealAsyncWriteFailsRetracts(t *testing.T) {
	ctx := context.Background()
	c, keys := retractChain(t)
	p := preconf.New(c)
	var mu sync.Mutex
	var got []*preconf.Retraction
	p.OnRetract(func(r *preconf.Retraction) {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, r)
	})
	hold := newHoldWrites(t, 1)
	hold.fail = errors.New("no space left on device")
	a, b, x := echoCall(t, c, keys[0], "a"), echoCall(t, c, keys[1], "b"), echoCall(t, c, keys[2], "c")
	openNext(t, p, c)
	preconfirm(t, p, a)
	preconfirm(t, p, b)
	if _, err := p.SealAsync(ctx); err != nil {
		t.Fatal(err)
	}
	<-hold.started
	openNext(t, p, c) // block 2, on block 1
	preconfirm(t, p, x)
	hold.release(1)
	if err := p.WaitWritten(); !errors.Is(err, hold.fail) {
		t.Fatalf("WaitWritten: %v, want the write's error", err)
	}
	mu.Lock()
	defer mu.Unlock()
	var removed []*types.Log
	dropped := make(map[common.Hash]bool)
	for _, r := range got {
		if r.Block != nil || len(r.Added) != 0 {
			t.Fatalf("retraction of a dropped block names a sealed block or adds logs: %+v", r)
		}
		removed = append(removed, r.Removed...)
		for _, h := range r.Dropped {
			dropped[h] = true
		}
	}
	if d := logData(removed); !slices.Equal(d, []string{"a", "b", "c"}) {
		t.Fatalf("retracted logs %q, want a, b, c", d)
	}
	for _, l := range removed {
		if !l.Removed {
			t.Fatalf("retracted log without removed: %+v", l)
		}
	}
	for _, tx := range []*types.Transaction{a, b, x} {
		if !dropped[tx.Hash()] {
			t.Fatalf("transaction %s not among the dropped ones", tx.Hash())
		}
	}
}

// TestFailedWriteReturnsTransactionsToPool runs the dev sequencer on its timer over an OP
// Stack chain, fails the chain write of the block that carries a sender's first transactions
// (as a full disk would) while the next block pre-confirms another one on top of it, and
// checks that every transaction of both dropped blocks is sealed later, in order, and that
// the sender's next nonce is sealed after them. (That the blocks' deposits are not offered to
// the pool, which would refuse them, TestSealAsyncWriteFailsDropped checks.)
func TestFailedWriteReturnsTransactionsToPool(t *testing.T) {
	keys := make([]*ecdsa.PrivateKey, 2)
	var funded []common.Address
	for i := range keys {
		k, err := crypto.ToECDSA(crypto.Keccak256(binary.BigEndian.AppendUint32(nil, uint32(i+1))))
		if err != nil {
			t.Fatal(err)
		}
		keys[i] = k
		funded = append(funded, crypto.PubkeyToAddress(k.PublicKey))
	}
	g := oprollup.DevGenesis(1337, funded, new(big.Int).Mul(big.NewInt(1e6), big.NewInt(params.Ether)))
	c, err := chain.Open(chain.Config{DataDir: t.TempDir(), Genesis: g})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := c.Close(); err != nil {
			t.Error(err)
		}
	})
	sign := func(i int, nonce uint64) *types.Transaction {
		tx, err := types.SignNewTx(keys[i], types.LatestSigner(c.Config()), &types.DynamicFeeTx{
			ChainID: c.Config().ChainID, Nonce: nonce, To: &common.Address{0xee}, Value: big.NewInt(1),
			Gas: params.TxGas, GasFeeCap: big.NewInt(params.GWei), GasTipCap: big.NewInt(1000),
		})
		if err != nil {
			t.Fatal(err)
		}
		return tx
	}
	a0, a1, x0, b0 := sign(0, 0), sign(0, 1), sign(1, 0), sign(0, 2)

	pre := preconf.New(c)
	pool := txpool.New(c.Config(), txpool.Config{})
	// add admits tx on the block in progress, as eth_sendRawTransaction does. Between a seal
	// and the opening of the next block there is none for a moment: add waits it out.
	add := func(tx *types.Transaction) error {
		deadline := time.Now().Add(30 * time.Second)
		snap := pre.Current()
		for ; snap == nil; snap = pre.Current() {
			if time.Now().After(deadline) {
				return errors.New("no block in progress")
			}
			time.Sleep(time.Millisecond)
		}
		return pool.Add(tx, txpool.StateView(c.Config(), snap.Header(), snap.ReadState))
	}
	// The write of the block carrying a0 puts b0 in the pool, so that the next block
	// pre-confirms it, and fails once the test has seen it pre-confirmed.
	diskFull := errors.New("write: no space left on device")
	held, release := make(chan *types.Block, 1), make(chan struct{})
	var failed atomic.Bool
	t.Cleanup(preconf.SetWriteHook(func(b *types.Block) error {
		if failed.Load() || b.Transaction(a0.Hash()) == nil {
			return nil
		}
		failed.Store(true)
		held <- b
		if err := add(b0); err != nil {
			return errors.Join(diskFull, err)
		}
		<-release
		return diskFull
	}))
	seq := sequencer.New(sequencer.Config{
		BlockTime: time.Second, PreconfInterval: 100 * time.Millisecond,
		L1: &oprollup.DevL1{GenesisTime: g.Timestamp},
	}, c, pre, pool)
	if err := seq.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(seq.Close)
	for _, tx := range []*types.Transaction{a0, a1, x0} {
		if err := add(tx); err != nil {
			t.Fatal(err)
		}
	}

	var dropped *types.Block
	select {
	case dropped = <-held:
	case <-time.After(30 * time.Second):
		t.Fatal("no block with the first transaction was sealed")
	}
	waitFor(t, "b0 pre-confirmed in the block built on the one being written", func() bool {
		snap := pre.Current()
		if snap == nil {
			return false
		}
		_, ok := snap.TxIndex(b0.Hash())
		return ok && snap.Block.ParentHash() == dropped.Hash()
	})
	close(release)

	where := waitSealed(t, c, a0, a1, x0, b0)
	for i, tx := range []*types.Transaction{a0, a1, b0} {
		if where[tx.Hash()].block < dropped.NumberU64() {
			t.Fatalf("%s sealed in block %d, before the dropped block %d", tx.Hash(), where[tx.Hash()].block, dropped.NumberU64())
		}
		if i > 0 {
			prev := where[[]*types.Transaction{a0, a1, b0}[i-1].Hash()]
			if cur := where[tx.Hash()]; cur.block < prev.block || cur.block == prev.block && cur.index < prev.index {
				t.Fatalf("sealed out of order: %v", where)
			}
		}
	}
	if h := c.CanonicalHash(dropped.NumberU64()); h == dropped.Hash() {
		t.Fatalf("the block whose write failed is canonical")
	}
	// The sender's nonces go on from the transactions sealed again.
	c0 := sign(0, 3)
	if err := add(c0); err != nil {
		t.Fatal(err)
	}
	waitSealed(t, c, c0)
	st, err := c.StateAt(c.Head())
	if err != nil {
		t.Fatal(err)
	}
	if n := st.GetNonce(funded[0]); n != 4 {
		t.Fatalf("sender's nonce %d, want 4", n)
	}
}

// txPlace is where a transaction was sealed.
type txPlace struct{ block, index uint64 }

// waitSealed waits until every tx is in a canonical block and returns where each is.
func waitSealed(t *testing.T, c *chain.Chain, txs ...*types.Transaction) map[common.Hash]txPlace {
	t.Helper()
	where := make(map[common.Hash]txPlace)
	waitFor(t, "the transactions sealed", func() bool {
		clear(where)
		for n := uint64(1); n <= c.Head().Number.Uint64(); n++ {
			for i, tx := range c.BlockByNumber(n).Transactions() {
				where[tx.Hash()] = txPlace{n, uint64(i)}
			}
		}
		for _, tx := range txs {
			if _, ok := where[tx.Hash()]; !ok {
				return false
			}
		}
		return true
	})
	return where
}

// waitFor polls cond until it holds, failing the test after a generous deadline.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func hashes(txs []*types.Transaction) []common.Hash {
	out := make([]common.Hash, len(txs))
	for i, tx := range txs {
		out[i] = tx.Hash()
	}
	return out
}

func sameHashes(a, b []*types.Transaction) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Hash() != b[i].Hash() {
			return false
		}
	}
	return true
}
