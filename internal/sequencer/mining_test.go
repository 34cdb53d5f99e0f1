package sequencer

import (
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"

	"github.com/flashrpc/flashrpc/internal/txpool"
)

// TestAutomineSeals: under automine the pool's Add seals the transaction's block and writes it
// before it returns, with the whole gas limit (no per-flashblock budget: the block is one
// pre-confirmation); a nonce gap seals nothing until it is filled; off, Add only pools.
func TestAutomineSeals(t *testing.T) {
	ts := newTestSeqTimed(t, txpool.Config{}, Config{Flashblocks: 10}, wallClock{})
	ts.SetAutomine(true)
	if !ts.Automine() {
		t.Fatal("Automine() false after SetAutomine(true)")
	}
	limit := ts.pre.Current().Block.GasLimit()
	to := common.Address{0xee}
	heavy := func(nonce uint64) *types.Transaction { // more gas than a tenth of the block: over the first flashblock's budget
		tx, err := types.SignNewTx(ts.keys[0], types.LatestSigner(ts.chain.Config()), &types.DynamicFeeTx{
			ChainID: ts.chain.Config().ChainID, Nonce: nonce, To: &to, Value: common.Big1, Gas: limit / 5,
			GasFeeCap: new(big.Int).SetUint64(100 * params.GWei), GasTipCap: common.Big1,
		})
		if err != nil {
			t.Fatal(err)
		}
		return tx
	}
	ts.send(t, heavy(0))
	if head := ts.chain.Head(); head.Number.Uint64() != 1 {
		t.Fatalf("head %d after an automined send, want 1 (a transaction over the flashblock budget waits)", head.Number.Uint64())
	}
	if b := ts.chain.BlockByNumber(1); b == nil || len(b.Transactions()) != 1 {
		t.Fatalf("block 1: %v, want one transaction", b)
	}
	ts.send(t, heavy(2))
	if n := ts.chain.Head().Number.Uint64(); n != 1 {
		t.Fatalf("head %d after a send behind a nonce gap, want 1", n)
	}
	ts.send(t, heavy(1))
	if b := ts.chain.BlockByNumber(2); ts.chain.Head().Number.Uint64() != 2 || b == nil || len(b.Transactions()) != 2 {
		t.Fatalf("head %d, block 2 %v: want the gap's two transactions in block 2", ts.chain.Head().Number.Uint64(), b)
	}
	ts.SetAutomine(false)
	ts.send(t, heavy(3))
	if n := ts.chain.Head().Number.Uint64(); n != 2 {
		t.Fatalf("head %d after a send with automine off (manual mode), want 2", n)
	}
}

// TestTimerRestarts: the mining controls restart the timer loop with the new block time, and
// after Close none runs again; Close may be called twice.
func TestTimerRestarts(t *testing.T) {
	ts := newTestSeqTimed(t, txpool.Config{}, Config{BlockTime: time.Hour, PreconfInterval: time.Hour}, wallClock{})
	if d, _ := ts.Timer(); d != time.Hour {
		t.Fatalf("Timer() %s, want the configured 1h", d)
	}
	_, since := ts.Timer()
	if err := ts.SetBlockTime(30 * time.Minute); err != nil {
		t.Fatal(err)
	}
	if d, at := ts.Timer(); d != 30*time.Minute || !at.After(since) {
		t.Fatalf("Timer() %s since %v, want 30m since after %v", d, at, since)
	}
	ts.SetAutomine(true)
	if d, _ := ts.Timer(); d != 0 || ts.BlockTime() != 30*time.Minute {
		t.Fatalf("under automine: Timer() %s (want 0), BlockTime() %s (want 30m)", d, ts.BlockTime())
	}
	if err := ts.SetBlockTime(-time.Second); err == nil {
		t.Fatal("a negative block time was taken")
	}
	if err := ts.SetBlockTime(MaxBlockTime + 1); err == nil {
		t.Fatal("a block time over MaxBlockTime was taken")
	}
	ts.Close()
	if err := ts.SetBlockTime(time.Minute); err != nil {
		t.Fatal(err)
	}
	ts.SetAutomine(false)
	ts.loopMu.Lock()
	running := ts.halt != nil
	ts.loopMu.Unlock()
	if running {
		t.Fatal("a timer loop started after Close")
	}
}
