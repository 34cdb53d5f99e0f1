package ethjson

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
)

// jsonWantTxKeys lists the keys geth writes for each transaction type, in RPCTransaction field
// order, stated independently of the reference copy. Legacy transactions protected by EIP-155
// add chainId after type.
var jsonWantTxKeys = map[uint8][]string{
	types.LegacyTxType:     {"blockHash", "blockNumber", "blockTimestamp", "from", "gas", "gasPrice", "hash", "input", "nonce", "to", "transactionIndex", "value", "type", "v", "r", "s"},
	types.AccessListTxType: {"blockHash", "blockNumber", "blockTimestamp", "from", "gas", "gasPrice", "hash", "input", "nonce", "to", "transactionIndex", "value", "type", "accessList", "chainId", "v", "r", "s", "yParity"},
	// Deposits always carry mint and isSystemTx (decisions.md); depositReceiptVersion comes
	// from the receipt (jsonCheckTxKeys adds it).
	types.DepositTxType:    {"blockHash", "blockNumber", "blockTimestamp", "from", "gas", "gasPrice", "hash", "input", "nonce", "to", "transactionIndex", "value", "type", "v", "r", "s", "sourceHash", "mint", "isSystemTx"},
	types.DynamicFeeTxType: {"blockHash", "blockNumber", "blockTimestamp", "from", "gas", "gasPrice", "maxFeePerGas", "maxPriorityFeePerGas", "hash", "input", "nonce", "to", "transactionIndex", "value", "type", "accessList", "chainId", "v", "r", "s", "yParity"},
	types.BlobTxType:       {"blockHash", "blockNumber", "blockTimestamp", "from", "gas", "gasPrice", "maxFeePerGas", "maxPriorityFeePerGas", "maxFeePerBlobGas", "hash", "input", "nonce", "to", "transactionIndex", "value", "type", "accessList", "chainId", "blobVersionedHashes", "v", "r", "s", "yParity"},
	types.SetCodeTxType:    {"blockHash", "blockNumber", "blockTimestamp", "from", "gas", "gasPrice", "maxFeePerGas", "maxPriorityFeePerGas", "hash", "input", "nonce", "to", "transactionIndex", "value", "type", "accessList", "chainId", "authorizationList", "v", "r", "s", "yParity"},
}

func TestAppendTransactionJSON(t *testing.T) {
	t.Parallel()
	for _, f := range jsonForks(t) {
		block := f.block
		hash := block.Hash()
		for i, tx := range block.Transactions() {
			receipt := f.receipts[i]
			located := TxLocation{Located: true, BlockHash: &hash, BlockNumber: block.NumberU64(), BlockTime: block.Time(), Index: uint64(i), BaseFee: block.BaseFee(), Receipt: receipt}
			preconfirmed := located
			preconfirmed.BlockHash = nil
			cases := []struct {
				name string
				loc  TxLocation
				want *refRPCTransaction
			}{
				{"sealed", located, refNewRPCTransaction(tx, hash, block.NumberU64(), block.Time(), uint64(i), block.BaseFee(), f.config, receipt)},
				// A pool transaction: geth's NewRPCPendingTransaction passes the zero hash.
				{"pool", TxLocation{BaseFee: block.BaseFee()}, refNewRPCTransaction(tx, common.Hash{}, block.NumberU64(), block.Time(), 0, block.BaseFee(), f.config, nil)},
				{"preconfirmed", preconfirmed, jsonWithoutBlockHash(refNewRPCTransaction(tx, hash, block.NumberU64(), block.Time(), uint64(i), block.BaseFee(), f.config, receipt))},
			}
			for _, c := range cases {
				t.Run(fmt.Sprintf("fork=%s/tx=%d/type=%d/%s", f.name, i, tx.Type(), c.name), func(t *testing.T) {
					got := AppendTransaction([]byte("[1,"), tx, c.loc, f.config)[3:]
					jsonCheck(t, "transaction", got, jsonMarshalRef(t, c.want))
					jsonCheckTxKeys(t, got, tx, c.loc.Receipt)
					jsonCheckTxLocation(t, got, c.loc)
				})
			}
		}
	}
}

func jsonWithoutBlockHash(tx *refRPCTransaction) *refRPCTransaction {
	tx.BlockHash = nil
	return tx
}

// jsonCheckTxKeys compares the keys of a transaction's JSON with jsonWantTxKeys.
func jsonCheckTxKeys(t *testing.T, got []byte, tx *types.Transaction, receipt *types.Receipt) {
	t.Helper()
	want := jsonWantTxKeys[tx.Type()]
	if tx.Type() == types.LegacyTxType && tx.Protected() {
		want = slices.Insert(slices.Clone(want), slices.Index(want, "type")+1, "chainId")
	}
	if tx.Type() == types.DepositTxType && receipt != nil && receipt.DepositReceiptVersion != nil {
		want = append(slices.Clone(want), "depositReceiptVersion")
	}
	if keys := jsonObjectKeys(t, got); !slices.Equal(keys, want) {
		t.Errorf("keys\n got %v\nwant %v", keys, want)
	}
}

// jsonCheckTxLocation checks the location fields and the fee-market gasPrice rule.
func jsonCheckTxLocation(t *testing.T, got []byte, loc TxLocation) {
	t.Helper()
	var tx struct {
		BlockHash, BlockNumber, BlockTimestamp, TransactionIndex json.RawMessage
		GasPrice, MaxFeePerGas                                   *string
	}
	if err := json.Unmarshal(got, &tx); err != nil {
		t.Fatal(err)
	}
	null := json.RawMessage("null")
	if !loc.Located {
		for _, v := range []json.RawMessage{tx.BlockHash, tx.BlockNumber, tx.BlockTimestamp, tx.TransactionIndex} {
			if string(v) != string(null) {
				t.Errorf("unlocated transaction has location field %s", v)
			}
		}
		if tx.MaxFeePerGas != nil && *tx.GasPrice != *tx.MaxFeePerGas {
			t.Errorf("unlocated gasPrice = %s, want maxFeePerGas %s", *tx.GasPrice, *tx.MaxFeePerGas)
		}
		return
	}
	if (loc.BlockHash == nil) != (string(tx.BlockHash) == "null") {
		t.Errorf("blockHash = %s, location hash %v", tx.BlockHash, loc.BlockHash)
	}
	if want := fmt.Sprintf(`"%#x"`, loc.BlockNumber); string(tx.BlockNumber) != want {
		t.Errorf("blockNumber = %s, want %s", tx.BlockNumber, want)
	}
	if want := fmt.Sprintf(`"%#x"`, loc.Index); string(tx.TransactionIndex) != want {
		t.Errorf("transactionIndex = %s, want %s", tx.TransactionIndex, want)
	}
}

// TestAppendTransactionEffectiveGasPriceJSON pins the effective gas price rule with numbers.
func TestAppendTransactionEffectiveGasPriceJSON(t *testing.T) {
	t.Parallel()
	f := buildJSONFork(t, "london", jsonChainConfig("london"))
	hash := f.block.Hash()
	var checked int
	for i, tx := range f.block.Transactions() {
		if tx.Type() != types.DynamicFeeTxType {
			continue
		}
		loc := TxLocation{Located: true, BlockHash: &hash, BlockNumber: 1234, Index: uint64(i), BaseFee: f.block.BaseFee()}
		var got struct{ GasPrice string }
		if err := json.Unmarshal(AppendTransaction(nil, tx, loc, f.config), &got); err != nil {
			t.Fatal(err)
		}
		// Base fee 1_000_000_007: tip 2 under cap 5e9 → 1_000_000_009; tip 3e9 over cap 3.5e9 → cap.
		want := map[uint64]string{2: "0x3b9aca09", 3_000_000_000: "0xd09dc300"}[tx.GasTipCap().Uint64()]
		if got.GasPrice != want {
			t.Errorf("tx %d: gasPrice = %s, want %s", i, got.GasPrice, want)
		}
		checked++
	}
	if checked != 2 {
		t.Fatalf("checked %d dynamic-fee transactions, want 2", checked)
	}
}

// BenchmarkAppendTransactionJSON encodes one located transaction of each type.
func BenchmarkAppendTransactionJSON(b *testing.B) {
	f := buildJSONFork(b, "prague", jsonChainConfig("prague"))
	hash := f.block.Hash()
	seen := map[uint8]bool{}
	for i, tx := range f.block.Transactions() {
		if seen[tx.Type()] {
			continue
		}
		seen[tx.Type()] = true
		loc := TxLocation{Located: true, BlockHash: &hash, BlockNumber: f.block.NumberU64(), BlockTime: f.block.Time(), Index: uint64(i), BaseFee: f.block.BaseFee()}
		b.Run(fmt.Sprintf("type=%d", tx.Type()), func(b *testing.B) {
			buf := AppendTransaction(nil, tx, loc, f.config)
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				buf = AppendTransaction(buf[:0], tx, loc, f.config)
			}
			if len(buf) == 0 {
				b.Fatal("empty output")
			}
		})
	}
}
