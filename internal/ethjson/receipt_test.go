package ethjson

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
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
					got := AppendReceipt([]byte("x"), r, tx, blockHash, block.NumberU64(), signer, i)[1:]
					jsonCheck(t, "receipt", got, jsonMarshalRef(t, refMarshalReceipt(r, blockHash, block.NumberU64(), signer, tx, i)))
					jsonCheckSortedKeys(t, "receipt", got)
					jsonCheckReceiptShape(t, got, r, tx)
				})
			}
		}
	}
}

// jsonCheckReceiptShape checks the receipt rules stated independently of the reference copy.
func jsonCheckReceiptShape(t *testing.T, got []byte, r *types.Receipt, tx *types.Transaction) {
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
	_, hasBlob := obj["blobGasUsed"]
	if hasBlob != (tx.Type() == types.BlobTxType) {
		t.Errorf("blobGasUsed present = %v for type %d", hasBlob, tx.Type())
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
		buf := AppendReceipt(nil, r, tx, f.block.Hash(), f.block.NumberU64(), signer, i)
		b.ReportAllocs()
		b.ResetTimer()
		for b.Loop() {
			buf = AppendReceipt(buf[:0], r, tx, f.block.Hash(), f.block.NumberU64(), signer, i)
		}
		if len(buf) == 0 {
			b.Fatal("empty output")
		}
		return
	}
	b.Fatal("no receipt with two logs")
}
