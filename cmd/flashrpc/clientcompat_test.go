package main

import (
	"context"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"
	gethrpc "github.com/ethereum/go-ethereum/rpc"
)

// What client libraries rely on (internal/api/chaindata/nonce.go); clients/ runs the libraries
// themselves against a node.

// TestSafeFinalizedBeforeFirstSeal checks that `safe` and `finalized` answer the head from the
// start, genesis included, and after a restart: viem and ethers ask for them on a fresh node.
func TestSafeFinalizedBeforeFirstSeal(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	tn := startTestNode(t, testOptions(dir))
	tags := map[string]*big.Int{
		"safe":      big.NewInt(int64(gethrpc.SafeBlockNumber)),
		"finalized": big.NewInt(int64(gethrpc.FinalizedBlockNumber)),
	}
	check := func(want common.Hash) {
		t.Helper()
		for name, tag := range tags {
			for _, c := range []struct {
				endpoint string
				get      func(context.Context, *big.Int) (common.Hash, error)
			}{
				{"standard", func(ctx context.Context, n *big.Int) (common.Hash, error) {
					h, err := tn.std.HeaderByNumber(ctx, n)
					if err != nil {
						return common.Hash{}, err
					}
					return h.Hash(), nil
				}},
				{"pre-confirmed", func(ctx context.Context, n *big.Int) (common.Hash, error) {
					h, err := tn.pre.HeaderByNumber(ctx, n)
					if err != nil {
						return common.Hash{}, err
					}
					return h.Hash(), nil
				}},
			} {
				if got, err := c.get(ctx, tag); err != nil || got != want {
					t.Fatalf("%s %s: %s %v, want %s", c.endpoint, name, got, err, want)
				}
			}
		}
	}
	check(tn.Chain().Genesis().Hash())
	tn.seal(t)
	head := tn.Chain().Head().Hash()
	check(head)
	tn.stop()
	tn = startTestNode(t, testOptions(dir))
	check(head)
}

// TestPendingNonceCountsPool checks eth_getTransactionCount(addr, "pending") on both endpoints:
// it counts the sender's pooled and pre-confirmed transactions, so that a wallet sending twice
// in a row picks consecutive nonces, while `latest` and the other pending state reads of the
// standard endpoint still show the sealed state only. The pre-confirmed endpoint's `latest`
// nonce counts the pre-confirmed transactions (decisions.md), not the pooled ones.
func TestPendingNonceCountsPool(t *testing.T) {
	ctx := context.Background()
	tn := startTestNode(t, testOptions(t.TempDir()))
	key := tn.Accounts()[0].Key
	from := addressOf(key)
	chainID := big.NewInt(1337)
	to := common.HexToAddress("0x000000000000000000000000000000000000dEaD")
	// latest is the standard endpoint's `latest` nonce (sealed); the pre-confirmed endpoint's
	// counts the pre-confirmed transactions too (decisions.md "Nonces on the pre-confirmed
	// endpoint"): preLatest.
	wantNonces := func(pending, latest, preLatest uint64) {
		t.Helper()
		for name, c := range map[string]interface {
			PendingNonceAt(context.Context, common.Address) (uint64, error)
			NonceAt(context.Context, common.Address, *big.Int) (uint64, error)
		}{"standard": tn.std, "pre-confirmed": tn.pre} {
			if n, err := c.PendingNonceAt(ctx, from); err != nil || n != pending {
				t.Fatalf("%s pending nonce %d %v, want %d", name, n, err, pending)
			}
			want := latest
			if name == "pre-confirmed" {
				want = preLatest
			}
			if n, err := c.NonceAt(ctx, from, nil); err != nil || n != want {
				t.Fatalf("%s latest nonce %d %v, want %d", name, n, err, want)
			}
		}
	}
	wantNonces(0, 0, 0)
	for nonce := uint64(0); nonce < 2; nonce++ { // pooled, not pre-confirmed
		if err := tn.std.SendTransaction(ctx, signTx(t, key, chainID, nonce, &to, big.NewInt(1), params.TxGas, nil)); err != nil {
			t.Fatal(err)
		}
	}
	wantNonces(2, 0, 0)
	// A gap: nonce 3 waits in the pool and does not count.
	if err := tn.pre.SendTransaction(ctx, signTx(t, key, chainID, 3, &to, big.NewInt(1), params.TxGas, nil)); err != nil {
		t.Fatal(err)
	}
	wantNonces(2, 0, 0)
	tn.preconfirm(t) // nonces 0 and 1 pre-confirmed, 3 still waits
	wantNonces(2, 0, 2)
	if err := tn.std.SendTransaction(ctx, signTx(t, key, chainID, 2, &to, big.NewInt(1), params.TxGas, nil)); err != nil {
		t.Fatal(err)
	}
	wantNonces(4, 0, 2)
	// The standard endpoint's other pending reads stay on the sealed state.
	if bal, err := tn.std.PendingBalanceAt(ctx, to); err != nil || bal.Sign() != 0 {
		t.Fatalf("standard pending balance %v %v, want 0 before sealing", bal, err)
	}
	tn.preconfirm(t)
	tn.seal(t)
	wantNonces(4, 4, 4)
}

// TestEstimateGasBlockDefault checks which state eth_estimateGas runs on: without a block
// parameter the sealed head (service.md 4.3: "Default latest"), with `pending` on the
// pre-confirmed endpoint the block in progress, so a call to a contract that is only
// pre-confirmed is estimated with its code only when pending is asked for.
func TestEstimateGasBlockDefault(t *testing.T) {
	tn := startTestNode(t, testOptions(t.TempDir()))
	key := tn.Accounts()[0].Key
	deploy := signTx(t, key, big.NewInt(1337), 0, nil, new(big.Int), 200_000, logInit)
	if err := tn.pre.SendTransaction(context.Background(), deploy); err != nil {
		t.Fatal(err)
	}
	tn.preconfirm(t)
	contract := crypto.CreateAddress(addressOf(key), 0)
	msg := map[string]any{"from": addressOf(key), "to": contract}
	estimate := func(c *gethrpc.Client, block ...any) uint64 {
		t.Helper()
		var gas hexutil.Uint64
		if err := c.Call(&gas, "eth_estimateGas", append([]any{msg}, block...)...); err != nil {
			t.Fatalf("eth_estimateGas %v: %v", block, err)
		}
		return uint64(gas)
	}
	plain := params.TxGas // a call to an address without code
	cases := []struct {
		name     string
		c        *gethrpc.Client
		block    []any
		withCode bool
	}{
		{"pre-confirmed, no block", tn.preRaw, nil, false},
		{"pre-confirmed, null block", tn.preRaw, []any{nil}, false},
		{"pre-confirmed, pending", tn.preRaw, []any{"pending"}, true},
		{"pre-confirmed, latest", tn.preRaw, []any{"latest"}, false},
		{"standard, no block", tn.stdRaw, nil, false},
	}
	for _, c := range cases {
		got := estimate(c.c, c.block...)
		if c.withCode != (got > plain) {
			t.Errorf("%s: estimate %d; want it to run the contract: %v", c.name, got, c.withCode)
		}
	}
	tn.seal(t)
	if got := estimate(tn.stdRaw); got <= plain {
		t.Errorf("standard after sealing: estimate %d, want the contract's cost", got)
	}
}
