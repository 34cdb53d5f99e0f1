package main

import (
	"bytes"
	"context"
	"encoding/json"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/flashrpc/flashrpc/internal/fork"
	"github.com/flashrpc/flashrpc/internal/oprollup"
)

// TestForkOPStack forks a flashrpc OP Stack dev chain (chain 1337, an id no registry knows,
// whose blocks open with a deposit: OP Stack rules) and checks that the OP rules continue on
// the fork: the first forked block and every sealed one open with the L1-attributes deposit,
// which continues the fork block's L1 origin and fee parameters; blocks keep its extraData and
// fee recipient; a local transaction's receipt carries the L1 fee fields; a dev_deposit lands
// right after the L1-attributes deposit; and the upstream's OP blocks and receipts below the
// fork come back in their OP shapes (deposit type 0x7e with its fields, l1Fee).
func TestForkOPStack(t *testing.T) {
	ctx := context.Background()
	// An OP Stack dev chain (testOptions) whose L1 fees are not the defaults, which a fork
	// that did not continue the fork block's L1 attributes would fall back to.
	f := newForkFixtureWith(t, func(o *devOptions) {
		o.l1BaseFee.v, o.l1BlobBaseFee.v = big.NewInt(7e9), big.NewInt(3)
	})
	if !oprollup.IsOP(f.up.Chain().Config()) {
		t.Fatal("the upstream is not an OP Stack chain")
	}
	dir := t.TempDir()
	tn := startTestNode(t, f.forkOptions(dir))
	if !oprollup.IsOP(tn.Chain().Config()) {
		t.Fatalf("the fork of an OP Stack chain runs %s", fork.Of(tn.Chain()).Info().Network)
	}
	upN, err := f.up.std.BlockByNumber(ctx, big.NewInt(3))
	if err != nil {
		t.Fatal(err)
	}
	upInfo, err := oprollup.BlockL1Info(upN.Transactions())
	if err != nil {
		t.Fatal(err)
	}

	// checkOpens checks that block b opens with an L1-attributes deposit that continues parent's.
	checkOpens := func(b *types.Block, parent *oprollup.L1Info) *oprollup.L1Info {
		t.Helper()
		txs := b.Transactions()
		if len(txs) == 0 || !txs[0].IsDepositTx() || txs[0].To() == nil || *txs[0].To() != oprollup.L1Block {
			t.Fatalf("block %d does not open with the L1-attributes deposit: %d transactions", b.NumberU64(), len(txs))
		}
		info, err := oprollup.BlockL1Info(txs)
		if err != nil {
			t.Fatalf("block %d: %v", b.NumberU64(), err)
		}
		switch {
		case info.Number < parent.Number:
			t.Fatalf("block %d: L1 origin %d before its parent's %d", b.NumberU64(), info.Number, parent.Number)
		case info.Number == parent.Number && (info.SequenceNumber != parent.SequenceNumber+1 || info.Hash != parent.Hash):
			t.Fatalf("block %d: same L1 origin %d, sequence number %d (want %d), hash %s (want %s)", b.NumberU64(), info.Number, info.SequenceNumber, parent.SequenceNumber+1, info.Hash, parent.Hash)
		case info.Number > parent.Number && info.SequenceNumber != 0:
			t.Fatalf("block %d: new L1 origin with sequence number %d", b.NumberU64(), info.SequenceNumber)
		}
		if info.BaseFeeScalar != upInfo.BaseFeeScalar || info.BlobBaseFeeScalar != upInfo.BlobBaseFeeScalar || info.BaseFee.Int64() != 7e9 || info.BlobBaseFee.Int64() != 3 || info.BatcherHash != upInfo.BatcherHash {
			t.Fatalf("block %d: L1 attributes %+v do not keep the fork block's fee parameters %+v", b.NumberU64(), info, upInfo)
		}
		if b.Coinbase() != oprollup.SequencerFeeVault || !bytes.Equal(b.Extra(), upN.Extra()) {
			t.Fatalf("block %d: coinbase %s extraData %x, want the fork block's %s %x", b.NumberU64(), b.Coinbase(), b.Extra(), upN.Coinbase(), upN.Extra())
		}
		return info
	}

	// The first forked block, written at creation.
	b4, err := tn.std.BlockByNumber(ctx, big.NewInt(4))
	if err != nil {
		t.Fatal(err)
	}
	info4 := checkOpens(b4, upInfo)

	// A local transaction and a deposit, sealed by the sequencer.
	s := &sender{key: tn.Accounts()[0].Key}
	tx := s.send(t, tn, &f.store, new(big.Int), setData(7, 7))
	var depositHash common.Hash
	from := common.HexToAddress("0x00000000000000000000000000000000000d3b05")
	if err := tn.preRaw.Call(&depositHash, "dev_deposit", map[string]any{"from": from, "to": common.Address{0xbb}, "mint": "0x2", "value": "0x1", "gas": hexutil.Uint64(100_000)}); err != nil {
		t.Fatalf("dev_deposit on a fork: %v", err)
	}
	tn.preconfirm(t)
	tn.seal(t) // block 5: the transaction
	tn.preconfirm(t)
	tn.seal(t) // block 6: the deposit
	b5, err := tn.std.BlockByNumber(ctx, big.NewInt(5))
	if err != nil {
		t.Fatal(err)
	}
	info5 := checkOpens(b5, info4)
	if txs := b5.Transactions(); len(txs) != 2 || txs[1].Hash() != tx.Hash() {
		t.Fatalf("block 5 holds %d transactions, want the L1-attributes deposit and %s", len(txs), tx.Hash())
	}
	b6, err := tn.std.BlockByNumber(ctx, big.NewInt(6))
	if err != nil {
		t.Fatal(err)
	}
	info6 := checkOpens(b6, info5)
	if txs := b6.Transactions(); len(txs) != 2 || txs[1].Hash() != depositHash {
		t.Fatalf("block 6 holds %d transactions, want the L1-attributes deposit and the deposit %s", len(txs), depositHash)
	}
	if bal, err := tn.std.BalanceAt(ctx, common.Address{0xbb}, nil); err != nil || bal.Int64() != 1 {
		t.Fatalf("the deposit's recipient holds %v (%v), want 1 wei", bal, err)
	}

	// The local transaction's receipt carries the L1 fee, on both endpoints.
	for _, c := range []struct {
		name string
		call func(result any, method string, args ...any) error
	}{{"standard", tn.stdRaw.Call}, {"pre-confirmed", tn.preRaw.Call}} {
		var r map[string]json.RawMessage
		if err := c.call(&r, "eth_getTransactionReceipt", tx.Hash()); err != nil {
			t.Fatal(err)
		}
		var l1Fee hexutil.Big
		if err := json.Unmarshal(r["l1Fee"], &l1Fee); err != nil || l1Fee.ToInt().Sign() <= 0 {
			t.Fatalf("%s: receipt of a local transaction: l1Fee %s (%v), want a positive fee", c.name, r["l1Fee"], err)
		}
		for _, key := range []string{"l1GasUsed", "l1GasPrice", "l1BaseFeeScalar", "l1BlobBaseFee"} {
			if _, ok := r[key]; !ok {
				t.Fatalf("%s: receipt of a local transaction lacks %s", c.name, key)
			}
		}
	}

	// Below the fork: the upstream's OP shapes.
	var block struct {
		Transactions []map[string]json.RawMessage `json:"transactions"`
	}
	if err := tn.stdRaw.Call(&block, "eth_getBlockByNumber", "0x3", true); err != nil {
		t.Fatal(err)
	}
	if len(block.Transactions) == 0 || string(block.Transactions[0]["type"]) != `"0x7e"` || block.Transactions[0]["sourceHash"] == nil || block.Transactions[0]["isSystemTx"] == nil {
		t.Fatalf("block 3's first transaction: %v, want the upstream's deposit (type 0x7e, sourceHash, isSystemTx)", block.Transactions)
	}
	var r map[string]json.RawMessage
	if err := tn.stdRaw.Call(&r, "eth_getTransactionReceipt", f.before.Hash()); err != nil {
		t.Fatal(err)
	}
	if _, ok := r["l1Fee"]; !ok {
		t.Fatalf("receipt of the upstream's block 1: %v, want the L1 fee fields", r)
	}

	// A restart on the datadir without the fork flags resumes the fork, and its sequencer
	// continues the L1 attributes.
	tn.stop()
	tn = startTestNode(t, testOptions(dir))
	if fork.Of(tn.Chain()) == nil || !oprollup.IsOP(tn.Chain().Config()) {
		t.Fatal("a restart without --fork-url did not resume the OP Stack fork")
	}
	tn.seal(t) // block 7
	b7, err := tn.std.BlockByNumber(ctx, big.NewInt(7))
	if err != nil {
		t.Fatal(err)
	}
	checkOpens(b7, info6)
}
