package main

import (
	"context"
	"math/big"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"
	gethrpc "github.com/ethereum/go-ethereum/rpc"
)

// TestSendRawTransactionRejects sends transactions the pool must refuse and checks each error
// (code -32000, go-ethereum's text) and that nothing was pre-confirmed because of them.
func TestSendRawTransactionRejects(t *testing.T) {
	for _, chainType := range testChainTypes {
		t.Run(chainType, func(t *testing.T) { testSendRawTransactionRejects(t, chainType) })
	}
}

func testSendRawTransactionRejects(t *testing.T, chainType string) {
	ctx := context.Background()
	tn := startTestNode(t, testOptionsOf(t.TempDir(), chainType))
	key := tn.Accounts()[0].Key
	to := common.HexToAddress("0x0000000000000000000000000000000000000123")
	chainID := big.NewInt(1337)
	poor, _ := crypto.GenerateKey()

	// One good transaction first, so that nonce 0 is taken.
	if err := tn.pre.SendTransaction(ctx, signTx(t, key, chainID, 0, &to, big.NewInt(1), params.TxGas, nil)); err != nil {
		t.Fatal(err)
	}
	tn.preconfirm(t)

	fee := func(nonce uint64, value *big.Int, gas uint64, data []byte, feeCap int64) *types.DynamicFeeTx {
		return &types.DynamicFeeTx{ChainID: chainID, Nonce: nonce, To: &to, Value: value, Gas: gas, Data: data,
			GasFeeCap: big.NewInt(feeCap), GasTipCap: big.NewInt(1)}
	}
	mustSign := func(k any, data types.TxData, signerChain *big.Int) *types.Transaction {
		priv := tn.Accounts()[0].Key
		if k != nil {
			priv = poor
		}
		tx, err := types.SignNewTx(priv, types.LatestSignerForChainID(signerChain), data)
		if err != nil {
			t.Fatal(err)
		}
		return tx
	}
	gwei10 := int64(10 * params.GWei)
	cases := []struct {
		name string
		tx   *types.Transaction
		want string
	}{
		{"nonce too low", mustSign(nil, fee(0, big.NewInt(1), params.TxGas, nil, gwei10), chainID), "nonce too low: next nonce 1, tx nonce 0"},
		{"insufficient funds", mustSign(poor, fee(0, big.NewInt(1), params.TxGas, nil, gwei10), chainID), "insufficient funds for gas * price + value: balance 0"},
		{"fee below base fee", mustSign(nil, fee(1, big.NewInt(1), params.TxGas, nil, 1), chainID), "max fee per gas less than block base fee"},
		{"wrong chain id", mustSign(nil, otherChain(fee(1, big.NewInt(1), params.TxGas, nil, gwei10)), big.NewInt(1)), "invalid sender: invalid chain id for signer: have 1 want 1337"},
		{"intrinsic gas", mustSign(nil, fee(1, big.NewInt(1), 20_000, nil, gwei10), chainID), "intrinsic gas too low"},
		{"oversized", mustSign(nil, fee(1, big.NewInt(1), 10_000_000, make([]byte, 140_000), gwei10), chainID), "oversized data: transaction size"},
		{"post-exec type", types.NewTx(&types.PostExecTx{Data: []byte{0xc0}}), "transaction type not supported: post-execution transactions (type 0x7d)"},
	}
	// Osaka's transaction gas cap (EIP-7825); the OP Stack chain has it with Azul.
	cases = append(cases, struct {
		name string
		tx   *types.Transaction
		want string
	}{"gas over the cap", mustSign(nil, fee(1, big.NewInt(1), 20_000_000, nil, gwei10), chainID), "exceeds maximum per-transaction gas limit: transaction gas 20000000, cap (EIP-7825) 16777216"})
	// A deposit: only L1 (dev_deposit) makes one. The same refusal on a plain Ethereum chain.
	deposit := types.NewTx(&types.DepositTx{From: addressOf(key), To: &to, Mint: big.NewInt(1e18), Value: new(big.Int), Gas: 100_000})
	cases = append(cases, struct {
		name string
		tx   *types.Transaction
		want string
	}{"deposit", deposit, "transaction type not supported: deposit transactions (type 0x7e) come only from L1"})
	for _, c := range cases {
		err := tn.pre.SendTransaction(ctx, c.tx)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error containing %q", c.name, err, c.want)
			continue
		}
		if rpcErr, ok := err.(gethrpc.Error); !ok || rpcErr.ErrorCode() != -32000 {
			t.Errorf("%s: got %v, want code -32000", c.name, err)
		}
	}
	// The Sync variant refuses the same way, before waiting for anything.
	raw, _ := mustSign(nil, fee(1, big.NewInt(1), 20_000_000, nil, gwei10), chainID).MarshalBinary()
	var receipt map[string]any
	err := tn.preRaw.Call(&receipt, "eth_sendRawTransactionSync", hexutil.Encode(raw))
	if rpcErr, ok := err.(gethrpc.Error); !ok || rpcErr.ErrorCode() != -32000 || !strings.Contains(err.Error(), "exceeds maximum per-transaction gas limit") {
		t.Errorf("sync, gas over the cap: got %v, want -32000 exceeds maximum per-transaction gas limit", err)
	}
	// eth_estimateGas of a call that needs more than the cap says so on the OP Stack chain;
	// the plain Ethereum chain keeps go-ethereum's text.
	var est hexutil.Uint64
	loop := common.FromHex("5b600056") // JUMPDEST PUSH1 0 JUMP: runs out of any gas
	err = tn.preRaw.Call(&est, "eth_estimateGas", map[string]any{"from": addressOf(key), "data": hexutil.Encode(loop)})
	want := "gas required exceeds allowance (16777216): exceeds maximum per-transaction gas limit (EIP-7825 cap 16777216)"
	if chainType == chainTypeL1 {
		want = "gas required exceeds allowance (16777216)"
	}
	if err == nil || err.Error() != want {
		t.Errorf("estimate over the cap: got %v, want %q", err, want)
	}

	// Malformed bytes.
	var hash common.Hash
	err = tn.preRaw.Call(&hash, "eth_sendRawTransaction", "0x02c0")
	if rpcErr, ok := err.(gethrpc.Error); !ok || rpcErr.ErrorCode() != -32000 {
		t.Errorf("malformed: got %v, want -32000", err)
	}

	// None of them reached the block in progress.
	var res struct{ Transactions int }
	if err := tn.preRaw.Call(&res, "dev_preconfirm"); err != nil {
		t.Fatal(err)
	}
	if res.Transactions != 0 {
		t.Fatalf("a rejected transaction was pre-confirmed: %d added", res.Transactions)
	}
	block, err := tn.pre.BlockByNumber(ctx, pendingTag)
	if err != nil || len(block.Transactions())-depositCount(block.Transactions()) != 1 {
		t.Fatalf("pending block holds %d transactions, want the 1 good one besides its deposits (%v)", len(block.Transactions()), err)
	}
}

// otherChain moves a transaction to chain id 1.
func otherChain(tx *types.DynamicFeeTx) *types.DynamicFeeTx {
	tx.ChainID = big.NewInt(1)
	return tx
}
