package ethjson

import (
	"encoding/json"
	"fmt"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"
)

func TestAppendReceiptJSON(t *testing.T) {
	t.Parallel()
	for _, f := range jsonForks(t) {
		block := f.block
		signer := types.MakeSigner(f.config, block.Number(), block.Time())
		for i, r := range f.receipts {
			tx := block.Transactions()[i]
			for _, blockHash := range []common.Hash{block.Hash(), {}} { // sealed, pre-confirmed
				t.Run(fmt.Sprintf("fork=%s/tx=%d/type=%d/zeroHash=%v", f.name, i, tx.Type(), blockHash == common.Hash{}), func(t *testing.T) {
					got := AppendReceipt([]byte("x"), r, tx, blockHash, block.NumberU64(), signer, i, f.config)[1:]
					jsonCheck(t, "receipt", got, jsonMarshalRef(t, refMarshalReceipt(r, blockHash, block.NumberU64(), signer, tx, i, f.config)))
					jsonCheckSortedKeys(t, "receipt", got)
					jsonCheckReceiptShape(t, got, r, tx, f.config)
				})
			}
		}
	}
}

// TestAppendReceiptFeeScalarJSON covers l1FeeScalar, which op-geth derives for blocks before
// Ecotone only (fork mode or a replica of an old OP chain will serve them).
func TestAppendReceiptFeeScalarJSON(t *testing.T) {
	t.Parallel()
	var f jsonFork
	for _, fork := range jsonForks(t) {
		if fork.config.IsOptimism() {
			f = fork
		}
	}
	signer := types.MakeSigner(f.config, f.block.Number(), f.block.Time())
	for i, tx := range f.block.Transactions() {
		if tx.IsDepositTx() {
			continue
		}
		r := *f.receipts[i]
		r.FeeScalar = big.NewFloat(0.684)
		r.L1BlobBaseFee, r.L1BaseFeeScalar, r.L1BlobBaseFeeScalar, r.DAFootprintGasScalar = nil, nil, nil, nil
		got := AppendReceipt(nil, &r, tx, f.block.Hash(), f.block.NumberU64(), signer, i, f.config)
		jsonCheck(t, "receipt", got, jsonMarshalRef(t, refMarshalReceipt(&r, f.block.Hash(), f.block.NumberU64(), signer, tx, i, f.config)))
		jsonCheckSortedKeys(t, "receipt", got)
		return
	}
	t.Fatal("no OP Stack receipt to test")
}

// jsonCheckReceiptShape checks the receipt rules stated independently of the reference copy.
func jsonCheckReceiptShape(t *testing.T, got []byte, r *types.Receipt, tx *types.Transaction, config *params.ChainConfig) {
	t.Helper()
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(got, &obj); err != nil {
		t.Fatal(err)
	}
	_, hasRoot := obj["root"]
	_, hasStatus := obj["status"]
	if hasRoot == hasStatus || hasRoot != (len(r.PostState) > 0) {
		t.Errorf("root present %v, status present %v, post state %x", hasRoot, hasStatus, r.PostState)
	}
	deposit, op := tx.IsDepositTx(), config.IsOptimism()
	_, hasBlob := obj["blobGasUsed"]
	if hasBlob != (tx.Type() == types.BlobTxType || op && !deposit && config.IsJovian(0)) { // Jovian: the DA footprint
		t.Errorf("blobGasUsed present = %v for type %d", hasBlob, tx.Type())
	}
	for _, key := range []string{"l1GasPrice", "l1GasUsed", "l1Fee", "l1BaseFeeScalar", "l1BlobBaseFee", "l1BlobBaseFeeScalar", "daFootprintGasScalar"} {
		if _, has := obj[key]; has != (op && !deposit) {
			t.Errorf("%s present = %v for type %d on an OP Stack chain = %v", key, has, tx.Type(), op)
		}
	}
	if _, has := obj["depositNonce"]; has != (op && deposit) {
		t.Errorf("depositNonce present = %v for type %d", has, tx.Type())
	}
	if op && !deposit && (string(obj["l1Fee"]) == "null" || string(obj["l1Fee"]) == `"0x0"`) {
		t.Errorf("l1Fee = %s, want the derived fee", obj["l1Fee"])
	}
	if (tx.To() == nil) != (string(obj["contractAddress"]) != "null") {
		t.Errorf("contractAddress = %s for a creation = %v", obj["contractAddress"], tx.To() == nil)
	}
	if string(obj["logs"]) == "null" {
		t.Error("logs is null, want an array")
	}
}

// BenchmarkAppendReceiptJSON encodes a blob transaction's receipt with two logs.
func BenchmarkAppendReceiptJSON(b *testing.B) {
	f := buildJSONFork(b, "prague", jsonChainConfig("prague"))
	signer := types.MakeSigner(f.config, f.block.Number(), f.block.Time())
	for i, r := range f.receipts {
		tx := f.block.Transactions()[i]
		if len(r.Logs) != 2 {
			continue
		}
		buf := AppendReceipt(nil, r, tx, f.block.Hash(), f.block.NumberU64(), signer, i, f.config)
		b.ReportAllocs()
		b.ResetTimer()
		for b.Loop() {
			buf = AppendReceipt(buf[:0], r, tx, f.block.Hash(), f.block.NumberU64(), signer, i, f.config)
		}
		if len(buf) == 0 {
			b.Fatal("empty output")
		}
		return
	}
	b.Fatal("no receipt with two logs")
}
