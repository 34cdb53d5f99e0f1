package main

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"
	gethrpc "github.com/ethereum/go-ethereum/rpc"

	"github.com/flashrpc/flashrpc/internal/node"
	"github.com/flashrpc/flashrpc/internal/oprollup"
)

// These tests run the default dev chain, an OP Stack chain with Base's fee settings, through
// real clients: the L1-attributes deposit, fees and their vaults, the L1Block and
// GasPriceOracle predeploys, dev_deposit, the JSON shapes and the genesis file.

// revertInit deploys a runtime that always reverts with empty data: PUSH1 0 PUSH1 0 REVERT.
var revertInit = common.FromHex("0x6005600c60003960056000f3" + "60006000fd")

// callData is a 4-byte selector followed by args.
func callData(sig string, args ...[]byte) []byte {
	return append(crypto.Keccak256([]byte(sig))[:4], bytes.Join(args, nil)...)
}

// abiBytes ABI-encodes one dynamic bytes argument.
func abiBytes(b []byte) []byte {
	out := common.BigToHash(big.NewInt(32)).Bytes()
	out = append(out, common.BigToHash(big.NewInt(int64(len(b)))).Bytes()...)
	return append(out, common.RightPadBytes(b, (len(b)+31)/32*32)...)
}

// callUint calls a view returning one uint256 at block n (nil: latest).
func callUint(t *testing.T, c interface {
	CallContract(context.Context, ethereum.CallMsg, *big.Int) ([]byte, error)
}, to common.Address, data []byte, n *big.Int) *big.Int {
	t.Helper()
	out, err := c.CallContract(context.Background(), ethereum.CallMsg{To: &to, Data: data}, n)
	if err != nil || len(out) != 32 {
		t.Fatalf("call %x on %s: %x %v", data[:4], to, out, err)
	}
	return new(big.Int).SetBytes(out)
}

// TestOPStackBlocks checks that every block opens with the L1-attributes deposit, from the
// depositor to L1Block, in pre-confirmation 0, and that L1Block's getters return what that
// deposit carried and what the receipts use, with the L1 fees of the flags.
func TestOPStackBlocks(t *testing.T) {
	ctx := context.Background()
	o := testOptions(t.TempDir())
	o.l1BaseFee.v, o.l1BlobBaseFee.v = big.NewInt(7_000_000_000), big.NewInt(3)
	tn := startTestNode(t, o)

	// Pre-confirmation 0 of block 1 holds the L1-attributes deposit only.
	snap := tn.Preconf().Current()
	if snap == nil || snap.Index != 0 || snap.Number() != 1 || len(snap.Block.Transactions()) != 1 || snap.FirstNew != 0 {
		t.Fatalf("pre-confirmation 0: %+v", snap)
	}
	to := common.HexToAddress("0x0000000000000000000000000000000000000abc")
	tx := signTx(t, tn.Accounts()[0].Key, big.NewInt(1337), 0, &to, big.NewInt(1), params.TxGas, nil)
	if err := tn.pre.SendTransaction(ctx, tx); err != nil {
		t.Fatal(err)
	}
	tn.preconfirm(t)
	tn.seal(t)
	tn.seal(t) // block 2, usually under the same L1 origin

	for n := uint64(1); n <= 2; n++ {
		block, err := tn.std.BlockByNumber(ctx, new(big.Int).SetUint64(n))
		if err != nil {
			t.Fatal(err)
		}
		info := block.Transactions()[0]
		if !info.IsDepositTx() || *info.To() != oprollup.L1Block || info.IsSystemTx() || info.Mint() != nil && info.Mint().Sign() != 0 || info.Gas() != 1_000_000 {
			t.Fatalf("block %d: transaction 0 is not the L1-attributes deposit: %+v", n, info)
		}
		if from, _ := types.Sender(types.LatestSignerForChainID(big.NewInt(1337)), info); from != oprollup.DepositorAccount {
			t.Fatalf("block %d: deposit from %s", n, from)
		}
		attrs, err := oprollup.UnmarshalL1Info(info.Data())
		if err != nil {
			t.Fatal(err)
		}
		if attrs.BaseFee.Int64() != 7_000_000_000 || attrs.BlobBaseFee.Int64() != 3 {
			t.Fatalf("block %d: L1 attributes %+v", n, attrs)
		}
		if block.Coinbase() != oprollup.SequencerFeeVault || block.Header().WithdrawalsHash == nil || block.Header().RequestsHash == nil {
			t.Fatalf("block %d: header %+v", n, block.Header())
		}
		// L1Block's getters at this block return the deposit's values.
		at := block.Number()
		for sig, want := range map[string]*big.Int{
			"number()":               new(big.Int).SetUint64(attrs.Number),
			"timestamp()":            new(big.Int).SetUint64(attrs.Time),
			"basefee()":              attrs.BaseFee,
			"hash()":                 attrs.Hash.Big(),
			"sequenceNumber()":       new(big.Int).SetUint64(attrs.SequenceNumber),
			"blobBaseFee()":          attrs.BlobBaseFee,
			"baseFeeScalar()":        big.NewInt(int64(oprollup.BaseFeeScalar)),
			"blobBaseFeeScalar()":    big.NewInt(int64(oprollup.BlobBaseFeeScalar)),
			"daFootprintGasScalar()": big.NewInt(int64(oprollup.DAFootprintGasScalar)),
			"operatorFeeScalar()":    big.NewInt(int64(oprollup.OperatorFeeScalar)),
		} {
			if got := callUint(t, tn.std, oprollup.L1Block, callData(sig), at); got.Cmp(want) != 0 {
				t.Errorf("block %d: L1Block.%s = %v, want %v", n, sig, got, want)
			}
		}
		// GasPriceOracle reads the same.
		if got := callUint(t, tn.std, oprollup.GasPriceOracle, callData("l1BaseFee()"), at); got.Cmp(attrs.BaseFee) != 0 {
			t.Errorf("block %d: GasPriceOracle.l1BaseFee() = %v", n, got)
		}
		if n == 1 {
			r, err := tn.std.TransactionReceipt(ctx, tx.Hash())
			if err != nil {
				t.Fatal(err)
			}
			if r.L1GasPrice.Cmp(attrs.BaseFee) != 0 || r.L1BlobBaseFee.Cmp(attrs.BlobBaseFee) != 0 ||
				*r.L1BaseFeeScalar != uint64(oprollup.BaseFeeScalar) || *r.L1BlobBaseFeeScalar != uint64(oprollup.BlobBaseFeeScalar) {
				t.Fatalf("receipt L1 fields %v %v %v %v do not match the block's L1 attributes", r.L1GasPrice, r.L1BlobBaseFee, *r.L1BaseFeeScalar, *r.L1BlobBaseFeeScalar)
			}
		}
	}
	b1, _ := tn.std.BlockByNumber(ctx, big.NewInt(1))
	b2, _ := tn.std.BlockByNumber(ctx, big.NewInt(2))
	i1, _ := oprollup.UnmarshalL1Info(b1.Transactions()[0].Data())
	i2, _ := oprollup.UnmarshalL1Info(b2.Transactions()[0].Data())
	if i1.Number == i2.Number && i2.SequenceNumber != i1.SequenceNumber+1 || i1.Number != i2.Number && i2.SequenceNumber != 0 {
		t.Fatalf("sequence numbers %d then %d under origins %d and %d", i1.SequenceNumber, i2.SequenceNumber, i1.Number, i2.Number)
	}
	if b1.Transactions()[0].Hash() == b2.Transactions()[0].Hash() {
		t.Fatal("two blocks share an L1-attributes deposit hash")
	}
}

// TestOPStackFees checks the fee accounting to the wei: each sender loses value + gasUsed ×
// effectiveGasPrice + l1Fee, the BaseFeeVault gains gasUsed × baseFee, the SequencerFeeVault
// (the coinbase) the tips and the L1FeeVault the L1 fees; GasPriceOracle.getL1Fee of a
// transaction's unsigned RLP equals its receipt's l1Fee; and a pre-confirmed receipt is its
// sealed receipt, field for field, but for the block hash.
func TestOPStackFees(t *testing.T) {
	ctx := context.Background()
	tn := startTestNode(t, testOptions(t.TempDir()))
	chainID := big.NewInt(1337)
	k0, k1 := tn.Accounts()[0].Key, tn.Accounts()[1].Key
	to := common.HexToAddress("0x00000000000000000000000000000000000c0ffe")
	reverter := crypto.CreateAddress(addressOf(k1), 0)
	legacy, err := types.SignNewTx(k0, types.LatestSignerForChainID(chainID), &types.LegacyTx{Nonce: 2, GasPrice: big.NewInt(2 * params.GWei), Gas: params.TxGas, To: &to, Value: big.NewInt(5)})
	if err != nil {
		t.Fatal(err)
	}
	txs := []*types.Transaction{
		signTx(t, k0, chainID, 0, &to, big.NewInt(params.Ether), params.TxGas, nil), // transfer
		signTx(t, k0, chainID, 1, nil, new(big.Int), 300_000, logInit),              // deployment
		legacy, // legacy pricing
		signTx(t, k1, chainID, 0, nil, new(big.Int), 100_000, revertInit),                         // deploys the reverter
		signTx(t, k1, chainID, 1, &reverter, big.NewInt(7), 60_000, bytes.Repeat([]byte{1}, 300)), // reverts, value kept
	}
	accounts := []common.Address{addressOf(k0), addressOf(k1), to, oprollup.BaseFeeVault, oprollup.SequencerFeeVault, oprollup.L1FeeVault, oprollup.OperatorFeeVault}
	before := map[common.Address]*big.Int{}
	for _, a := range accounts {
		b, err := tn.std.BalanceAt(ctx, a, nil)
		if err != nil {
			t.Fatal(err)
		}
		before[a] = b
	}
	for _, tx := range txs {
		if err := tn.pre.SendTransaction(ctx, tx); err != nil {
			t.Fatalf("send: %v", err)
		}
	}
	tn.preconfirm(t)
	pre := make([]json.RawMessage, len(txs))
	for i, tx := range txs {
		if err := tn.preRaw.Call(&pre[i], "eth_getTransactionReceipt", tx.Hash()); err != nil || string(pre[i]) == "null" {
			t.Fatalf("pre-confirmed receipt %d: %s %v", i, pre[i], err)
		}
	}
	tn.seal(t)
	block, err := tn.std.BlockByNumber(ctx, big.NewInt(1))
	if err != nil || len(block.Transactions()) != 1+len(txs) {
		t.Fatalf("block 1: %v", err)
	}
	baseFee := block.BaseFee()
	spent := map[common.Address]*big.Int{addressOf(k0): new(big.Int), addressOf(k1): new(big.Int)}
	vault := map[common.Address]*big.Int{oprollup.BaseFeeVault: new(big.Int), oprollup.SequencerFeeVault: new(big.Int), oprollup.L1FeeVault: new(big.Int), oprollup.OperatorFeeVault: new(big.Int)}
	received := new(big.Int)
	for i, tx := range txs {
		var sealed json.RawMessage
		if err := tn.stdRaw.Call(&sealed, "eth_getTransactionReceipt", tx.Hash()); err != nil {
			t.Fatal(err)
		}
		if got, want := receiptWithoutBlockHash(t, pre[i]), receiptWithoutBlockHash(t, sealed); got != want {
			t.Errorf("transaction %d: pre-confirmed receipt\n%s\ndiffers from the sealed one\n%s", i, got, want)
		}
		r, err := tn.std.TransactionReceipt(ctx, tx.Hash())
		if err != nil {
			t.Fatal(err)
		}
		if r.L1Fee == nil || r.L1Fee.Sign() <= 0 || r.L1GasUsed == nil || r.L1GasUsed.Sign() <= 0 {
			t.Fatalf("transaction %d: l1Fee %v l1GasUsed %v", i, r.L1Fee, r.L1GasUsed)
		}
		from, _ := types.Sender(types.LatestSignerForChainID(chainID), tx)
		gas := new(big.Int).SetUint64(r.GasUsed)
		cost := new(big.Int).Mul(gas, r.EffectiveGasPrice)
		cost.Add(cost, r.L1Fee)
		if r.Status == types.ReceiptStatusSuccessful {
			cost.Add(cost, tx.Value())
			if tx.To() != nil && *tx.To() == to {
				received.Add(received, tx.Value())
			}
		}
		spent[from].Add(spent[from], cost)
		vault[oprollup.BaseFeeVault].Add(vault[oprollup.BaseFeeVault], new(big.Int).Mul(gas, baseFee))
		vault[oprollup.SequencerFeeVault].Add(vault[oprollup.SequencerFeeVault], new(big.Int).Mul(gas, new(big.Int).Sub(r.EffectiveGasPrice, baseFee)))
		vault[oprollup.L1FeeVault].Add(vault[oprollup.L1FeeVault], r.L1Fee)

		// GasPriceOracle.getL1Fee of the unsigned transaction gives the receipt's L1 fee.
		unsigned, err := unsignedRLP(tx)
		if err != nil {
			t.Fatal(err)
		}
		if got := callUint(t, tn.std, oprollup.GasPriceOracle, callData("getL1Fee(bytes)", abiBytes(unsigned)), block.Number()); got.Cmp(r.L1Fee) != 0 {
			t.Errorf("transaction %d: GasPriceOracle.getL1Fee = %v, receipt l1Fee %v", i, got, r.L1Fee)
		}
	}
	if r, _ := tn.std.TransactionReceipt(ctx, txs[4].Hash()); r.Status != types.ReceiptStatusFailed {
		t.Fatal("the call to the reverter did not revert")
	}
	after := func(a common.Address) *big.Int {
		b, err := tn.std.BalanceAt(ctx, a, nil)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	for from, want := range spent {
		if got := new(big.Int).Sub(before[from], after(from)); got.Cmp(want) != 0 {
			t.Errorf("%s spent %v, want value + gasUsed × effectiveGasPrice + l1Fee = %v", from, got, want)
		}
	}
	for a, want := range vault {
		if got := new(big.Int).Sub(after(a), before[a]); got.Cmp(want) != 0 {
			t.Errorf("vault %s gained %v, want %v", a, got, want)
		}
	}
	if got := new(big.Int).Sub(after(to), before[to]); got.Cmp(received) != 0 {
		t.Errorf("recipient gained %v, want %v", got, received)
	}
}

// unsignedRLP is tx's encoding with a zero signature: what GasPriceOracle.getL1Fee takes.
func unsignedRLP(tx *types.Transaction) ([]byte, error) {
	var data types.TxData
	switch tx.Type() {
	case types.LegacyTxType:
		data = &types.LegacyTx{Nonce: tx.Nonce(), GasPrice: tx.GasPrice(), Gas: tx.Gas(), To: tx.To(), Value: tx.Value(), Data: tx.Data()}
	default:
		data = &types.DynamicFeeTx{ChainID: tx.ChainId(), Nonce: tx.Nonce(), GasTipCap: tx.GasTipCap(), GasFeeCap: tx.GasFeeCap(), Gas: tx.Gas(), To: tx.To(), Value: tx.Value(), Data: tx.Data(), AccessList: tx.AccessList()}
	}
	return types.NewTx(data).MarshalBinary()
}

// receiptWithoutBlockHash returns a receipt's JSON with its (and its logs') blockHash
// removed, keys sorted, for comparing a pre-confirmed receipt with a sealed one.
func receiptWithoutBlockHash(t *testing.T, raw json.RawMessage) string {
	t.Helper()
	var r map[string]any
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatal(err)
	}
	delete(r, "blockHash")
	if logs, ok := r["logs"].([]any); ok {
		for _, l := range logs {
			delete(l.(map[string]any), "blockHash")
		}
	}
	b, _ := json.Marshal(r)
	return string(b)
}

// TestDevDeposit sends deposits with dev_deposit: each lands at the top of the next block,
// right after the L1-attributes deposit, in pre-confirmation 0; it mints to its sender, runs
// without fees, carries its deposit fields, and identical deposits get distinct hashes.
func TestDevDeposit(t *testing.T) {
	ctx := context.Background()
	tn := startTestNode(t, testOptions(t.TempDir()))
	sender, recipient := common.HexToAddress("0x00000000000000000000000000000000000d3b05"), common.HexToAddress("0x00000000000000000000000000000000000d3b06")
	deposit := func(c *gethrpc.Client, args map[string]any) common.Hash {
		t.Helper()
		var h common.Hash
		if err := c.Call(&h, "dev_deposit", args); err != nil {
			t.Fatalf("dev_deposit %v: %v", args, err)
		}
		return h
	}
	transfer := map[string]any{"from": sender, "to": recipient, "mint": "0x1bc16d674ec80000", "value": "0xde0b6b3a7640000", "gas": "0x186a0"} // mint 2 ETH, send 1
	h1 := deposit(tn.preRaw, transfer)
	h2 := deposit(tn.stdRaw, transfer) // both endpoints; the same fields
	creator := common.HexToAddress("0x00000000000000000000000000000000000c4ea7")
	h3 := deposit(tn.preRaw, map[string]any{"from": creator, "gas": hexutil.Uint64(300_000), "data": hexutil.Bytes(logInit)})
	poor := common.HexToAddress("0x0000000000000000000000000000000000000bad")
	h4 := deposit(tn.preRaw, map[string]any{"from": poor, "to": recipient, "mint": "0x64", "value": "0x3e8"}) // value over balance + mint: fails
	if h1 == h2 {
		t.Fatal("two identical deposits share a hash: source hashes must differ")
	}
	// Not in the block in progress (block 1): the next one.
	if b, _ := tn.pre.BlockByNumber(ctx, pendingTag); len(b.Transactions()) != 1 {
		t.Fatalf("deposit in the block in progress: %d transactions", len(b.Transactions()))
	}
	tn.seal(t)
	snap := tn.Preconf().Current()
	want := []common.Hash{h1, h2, h3, h4}
	if snap.Index != 0 || snap.Number() != 2 || len(snap.Block.Transactions()) != 1+len(want) {
		t.Fatalf("pre-confirmation %d of block %d holds %d transactions", snap.Index, snap.Number(), len(snap.Block.Transactions()))
	}
	for i, h := range want {
		if got := snap.Block.Transactions()[1+i].Hash(); got != h {
			t.Fatalf("transaction %d of block 2 is %s, want deposit %s", 1+i, got, h)
		}
	}
	for i, h := range want {
		var raw map[string]json.RawMessage
		if err := tn.preRaw.Call(&raw, "eth_getTransactionByHash", h); err != nil {
			t.Fatal(err)
		}
		for _, key := range []string{"sourceHash", "mint", "isSystemTx", "depositReceiptVersion"} {
			if _, ok := raw[key]; !ok {
				t.Errorf("deposit %d: transaction JSON lacks %q: %v", i, key, raw)
			}
		}
		if string(raw["type"]) != `"0x7e"` || string(raw["isSystemTx"]) != "false" || string(raw["gasPrice"]) != `"0x0"` {
			t.Errorf("deposit %d: type %s isSystemTx %s gasPrice %s", i, raw["type"], raw["isSystemTx"], raw["gasPrice"])
		}
		if i == 2 && string(raw["mint"]) != `"0x0"` {
			t.Errorf("a deposit without mint has mint %s, want 0x0", raw["mint"])
		}
	}
	receipt := func(h common.Hash) map[string]json.RawMessage {
		var raw map[string]json.RawMessage
		if err := tn.preRaw.Call(&raw, "eth_getTransactionReceipt", h); err != nil {
			t.Fatal(err)
		}
		return raw
	}
	r1 := receipt(h1)
	if string(r1["status"]) != `"0x1"` || string(r1["depositNonce"]) != `"0x0"` || string(r1["depositReceiptVersion"]) != `"0x1"` || string(r1["effectiveGasPrice"]) != `"0x0"` {
		t.Fatalf("deposit receipt %v", r1)
	}
	if _, ok := r1["l1Fee"]; ok {
		t.Fatal("a deposit receipt carries l1Fee")
	}
	if r2 := receipt(h2); string(r2["depositNonce"]) != `"0x1"` {
		t.Fatalf("second deposit's nonce %s, want 0x1", r2["depositNonce"])
	}
	r3 := receipt(h3)
	contract := crypto.CreateAddress(creator, 0)
	if string(r3["contractAddress"]) != `"`+strings.ToLower(contract.Hex())+`"` {
		t.Fatalf("creation deposit: contractAddress %s, want %s", r3["contractAddress"], contract)
	}
	if code, err := tn.pre.CodeAt(ctx, contract, pendingTag); err != nil || !bytes.Equal(code, logRuntime) {
		t.Fatalf("code of the deposited contract: %x %v", code, err)
	}
	if r4 := receipt(h4); string(r4["status"]) != `"0x0"` {
		t.Fatalf("a deposit sending more than it has succeeded: %v", r4)
	}
	twoEther := new(big.Int).Mul(big.NewInt(2), big.NewInt(params.Ether))
	for addr, want := range map[common.Address]*big.Int{
		sender:    twoEther,        // minted 2 ETH twice, sent 1 ETH twice, paid no fees
		recipient: twoEther,        // received 1 ETH twice
		poor:      big.NewInt(100), // the failed deposit keeps its mint
	} {
		if got, err := tn.pre.BalanceAt(ctx, addr, pendingTag); err != nil || got.Cmp(want) != 0 {
			t.Errorf("balance of %s: %v %v, want %v", addr, got, err, want)
		}
	}
	// Sealed, the block is the pre-confirmed one.
	tn.seal(t)
	block, err := tn.std.BlockByNumber(ctx, big.NewInt(2))
	if err != nil || block.Hash() != snap.Block.Hash() {
		t.Fatalf("sealed block 2 %v differs from pre-confirmation 0", err)
	}
}

// TestDevDepositRejects sends dev_deposit requests with bad fields: each gets -32602 naming
// the field, and none reaches a block.
func TestDevDepositRejects(t *testing.T) {
	tn := startTestNode(t, testOptions(t.TempDir()))
	from := common.HexToAddress("0x0000000000000000000000000000000000000f00")
	cases := []struct {
		name   string
		params []any
		want   string
	}{
		{"no parameter", nil, "missing value for required argument 0"},
		{"not an object", []any{"0x01"}, "want a deposit object"},
		{"no from", []any{map[string]any{"to": from}}, "from: missing"},
		{"bad from", []any{map[string]any{"from": "0x12"}}, "from:"},
		{"bad to", []any{map[string]any{"from": from, "to": 7}}, "to:"},
		{"negative mint", []any{map[string]any{"from": from, "mint": "-0x1"}}, "mint:"},
		{"mint over 256 bits", []any{map[string]any{"from": from, "mint": "0x1" + strings.Repeat("0", 64)}}, "mint:"},
		{"bad value", []any{map[string]any{"from": from, "value": "0xzz"}}, "value:"},
		{"gas below intrinsic", []any{map[string]any{"from": from, "to": from, "gas": "0x5208", "data": "0x01"}}, "gas: 21000 is below the deposit's intrinsic gas"},
		{"gas over the block", []any{map[string]any{"from": from, "to": from, "gas": "0xffffffffff"}}, "gas: deposit gas exceeds what a block has room for"},
		{"odd data", []any{map[string]any{"from": from, "data": "0xabc"}}, "data:"},
		{"unknown field", []any{map[string]any{"from": from, "input": "0x"}}, `unknown field "input"`},
		{"two parameters", []any{map[string]any{"from": from}, 1}, "too many arguments"},
	}
	for _, c := range cases {
		var h common.Hash
		err := tn.preRaw.Call(&h, "dev_deposit", c.params...)
		rpcErr, ok := err.(gethrpc.Error)
		if !ok || rpcErr.ErrorCode() != -32602 || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want -32602 containing %q", c.name, err, c.want)
		}
	}
	tn.seal(t)
	if b := tn.Preconf().Current().Block; len(b.Transactions()) != 1 {
		t.Fatalf("block 2 opened with %d transactions, want the L1-attributes deposit only", len(b.Transactions()))
	}
}

// TestDevDepositOnPlainChain: a plain Ethereum dev chain has no dev_deposit.
func TestDevDepositOnPlainChain(t *testing.T) {
	tn := startTestNode(t, testOptionsOf(t.TempDir(), chainTypeL1))
	var h common.Hash
	err := tn.preRaw.Call(&h, "dev_deposit", map[string]any{"from": common.Address{1}})
	if rpcErr, ok := err.(gethrpc.Error); !ok || rpcErr.ErrorCode() != -32601 {
		t.Fatalf("dev_deposit on --chain-type l1: %v, want -32601", err)
	}
	if b := tn.Preconf().Current().Block; len(b.Transactions()) != 0 || b.Coinbase() == oprollup.SequencerFeeVault {
		t.Fatalf("plain Ethereum block 1 has OP Stack traits: %d transactions, coinbase %s", len(b.Transactions()), b.Coinbase())
	}
}

// TestGenesisFile checks <datadir>/genesis.json, and that an existing datadir keeps its
// chain: flags that contradict it are refused with a clear error.
func TestGenesisFile(t *testing.T) {
	for _, chainType := range testChainTypes {
		t.Run(chainType, func(t *testing.T) {
			dir := t.TempDir()
			tn := startTestNode(t, testOptionsOf(dir, chainType))
			want := tn.Chain().Genesis().Hash()
			tn.stop()
			data, err := os.ReadFile(filepath.Join(dir, node.GenesisFileName))
			if err != nil {
				t.Fatal(err)
			}
			var g core.Genesis
			if err := json.Unmarshal(data, &g); err != nil {
				t.Fatal(err)
			}
			if got := g.ToBlock().Hash(); got != want {
				t.Fatalf("genesis.json makes block %s, the chain's genesis is %s", got, want)
			}
			if (g.Config.Optimism != nil) != (chainType == chainTypeOP) {
				t.Fatalf("genesis.json optimism section: %v", g.Config.Optimism)
			}

			other := map[string]string{chainTypeOP: chainTypeL1, chainTypeL1: chainTypeOP}[chainType]
			for _, c := range []struct {
				flag string
				set  func(*devOptions)
				want string
			}{
				{"chain-type", func(o *devOptions) { o.chainType = other }, "--chain-type " + other + " conflicts with the chain in"},
				{"chain-id", func(o *devOptions) { o.chainID = 10 }, "--chain-id 10 conflicts with the chain in"},
				{"gas-limit", func(o *devOptions) { o.gasLimit = 30_000_000 }, "--gas-limit 30000000 conflicts"},
				{"mnemonic", func(o *devOptions) {
					o.mnemonic = "legal winner thank year wave sausage worth useful legal winner thank yellow"
				}, "is not funded in the genesis"},
			} {
				o := testOptions(dir)
				c.set(o)
				o.given = map[string]bool{c.flag: true}
				if n, err := startDev(o, slog.New(slog.DiscardHandler)); err == nil {
					n.Close()
					t.Errorf("--%s: a conflicting flag was accepted", c.flag)
				} else if !strings.Contains(err.Error(), c.want) {
					t.Errorf("--%s: %v, want an error containing %q", c.flag, err, c.want)
				}
			}
			// Without flags the stored chain decides.
			tn = startTestNode(t, testOptions(dir))
			if tn.Chain().Genesis().Hash() != want {
				t.Fatal("restart changed the genesis")
			}
		})
	}
}

// TestSimulateOnOPStack runs eth_simulateV1 with validation over two blocks on the block in
// progress: the second block's base fee comes from the first's extraData (op-geth cannot:
// its simulated blocks have none), the blocks carry their DA footprint and the
// L2ToL1MessagePasser's storage root, and eth_estimateGas / eth_call run under OP rules.
func TestSimulateOnOPStack(t *testing.T) {
	tn := startTestNode(t, testOptions(t.TempDir()))
	from := addressOf(tn.Accounts()[0].Key)
	to := common.HexToAddress("0x0000000000000000000000000000000000001234")
	call := map[string]any{"from": from, "to": to, "value": "0x1", "maxFeePerGas": "0x3b9aca00", "maxPriorityFeePerGas": "0x1"}
	var blocks []map[string]json.RawMessage
	opts := map[string]any{"validation": true, "blockStateCalls": []any{
		map[string]any{"calls": []any{call}},
		map[string]any{"calls": []any{call}},
	}}
	if err := tn.preRaw.Call(&blocks, "eth_simulateV1", opts, "pending"); err != nil {
		t.Fatal(err)
	}
	if len(blocks) != 2 {
		t.Fatalf("%d simulated blocks", len(blocks))
	}
	head, err := tn.pre.HeaderByNumber(context.Background(), pendingTag)
	if err != nil {
		t.Fatal(err)
	}
	for i, b := range blocks {
		if string(b["extraData"]) != `"`+hexutil.Encode(head.Extra)+`"` {
			t.Errorf("block %d: extraData %s, want the Jovian parameters %x", i, b["extraData"], head.Extra)
		}
		if string(b["withdrawalsRoot"]) != `"`+head.WithdrawalsHash.Hex()+`"` {
			t.Errorf("block %d: withdrawalsRoot %s, want L2ToL1MessagePasser's storage root %s", i, b["withdrawalsRoot"], head.WithdrawalsHash)
		}
		if string(b["blobGasUsed"]) != `"0x9c40"` { // one transfer: 100 bytes × scalar 400
			t.Errorf("block %d: blobGasUsed %s, want the DA footprint 0x9c40", i, b["blobGasUsed"])
		}
	}
	var gas hexutil.Uint64
	if err := tn.preRaw.Call(&gas, "eth_estimateGas", call, "pending"); err != nil || gas != hexutil.Uint64(params.TxGas) {
		t.Fatalf("eth_estimateGas: %d %v, want 21000 (L2 gas only)", gas, err)
	}
}

// TestPoolCountsL1Fee: on an OP Stack chain a transaction's sender must afford its L1 data fee
// too, as in op-geth's pool; one that can pay gas and value only is refused at submission
// instead of waiting in the pool for ever.
func TestPoolCountsL1Fee(t *testing.T) {
	ctx := context.Background()
	tn := startTestNode(t, testOptions(t.TempDir()))
	key, _ := crypto.GenerateKey()
	from := addressOf(key)
	feeCap := big.NewInt(params.GWei)
	gasCost := new(big.Int).Mul(feeCap, big.NewInt(int64(params.TxGas)))
	fund := func(amount *big.Int) {
		t.Helper()
		var h common.Hash
		if err := tn.preRaw.Call(&h, "dev_deposit", map[string]any{"from": from, "to": from, "mint": (*hexutil.Big)(amount)}); err != nil {
			t.Fatal(err)
		}
		tn.seal(t) // the deposit opens the next block
	}
	// A deposit uses its sender's nonce: sign with the current one.
	send := func() error {
		nonce, err := tn.pre.PendingNonceAt(ctx, from)
		if err != nil {
			t.Fatal(err)
		}
		tx, err := types.SignNewTx(key, types.LatestSignerForChainID(big.NewInt(1337)), &types.DynamicFeeTx{
			ChainID: big.NewInt(1337), Nonce: nonce, To: &from, Value: new(big.Int), Gas: params.TxGas, GasFeeCap: feeCap, GasTipCap: big.NewInt(1),
		})
		if err != nil {
			t.Fatal(err)
		}
		return tn.pre.SendTransaction(ctx, tx)
	}
	fund(gasCost) // gas × fee cap exactly: nothing left for the L1 fee
	if err := send(); err == nil || !strings.Contains(err.Error(), "insufficient funds for gas * price + value") {
		t.Fatalf("a sender without the L1 fee: %v, want insufficient funds", err)
	}
	fund(big.NewInt(1e16))
	if err := send(); err != nil {
		t.Fatalf("with the L1 fee funded: %v", err)
	}
}
