package main

import (
	"context"
	"errors"
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/params"
)

// TestDefaultTiming runs the sequencer on its default timers (200 ms pre-confirmations, 2 s
// blocks) and follows one transfer: it shows up in the pre-confirmed endpoint's pending block
// while the standard endpoint does not have it yet, then in a sealed block on both. The latency
// is logged, not asserted: docs/benchmarks.md measures it.
func TestDefaultTiming(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for real 200 ms / 2 s timers; skipped with -short")
	}
	ctx := context.Background()
	o := testOptions(t.TempDir())
	_, defaults := devFlags(nil)
	o.blockTime, o.preconfInterval = defaults.blockTime, defaults.preconfInterval
	tn := startTestNode(t, o)
	to := common.HexToAddress("0x0000000000000000000000000000000000000b0b")
	tx := signTx(t, tn.Accounts()[0].Key, big.NewInt(1337), 0, &to, big.NewInt(1), params.TxGas, nil)
	sent := time.Now()
	if err := tn.pre.SendTransaction(ctx, tx); err != nil {
		t.Fatal(err)
	}
	var preconfirmedIn time.Duration
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		block, err := tn.pre.BlockByNumber(ctx, pendingTag)
		if err != nil {
			t.Fatal(err)
		}
		if block.Transaction(tx.Hash()) == nil {
			continue
		}
		preconfirmedIn = time.Since(sent)
		// Pre-confirmed, and the standard endpoint knows nothing of it unless the block was
		// sealed in the meantime.
		_, err = tn.std.TransactionReceipt(ctx, tx.Hash())
		if err == nil && tn.Chain().Head().Number.Uint64() < block.NumberU64() {
			t.Fatal("the standard endpoint has a receipt for an unsealed block")
		}
		if err != nil && !errors.Is(err, ethereum.NotFound) {
			t.Fatal(err)
		}
		break
	}
	if preconfirmedIn == 0 {
		t.Fatal("the transaction was never pre-confirmed")
	}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the transaction was never sealed")
		}
		if r, err := tn.std.TransactionReceipt(ctx, tx.Hash()); err == nil && r.Status == 1 {
			t.Logf("pre-confirmed after %v, sealed after %v", preconfirmedIn, time.Since(sent))
			return
		}
	}
}
