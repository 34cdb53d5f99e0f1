package ethjson

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
)

// jsonWantBlockKeys are the keys every block carries whatever the fork (geth's RPCMarshalBlock
// always writes them), in the byte order encoding/json gives a map.
var jsonWantBlockKeys = []string{
	"difficulty", "extraData", "gasLimit", "gasUsed", "hash", "logsBloom", "miner", "mixHash",
	"nonce", "number", "parentHash", "receiptsRoot", "sha3Uncles", "size", "stateRoot",
	"timestamp", "transactions", "transactionsRoot", "uncles",
}

func TestAppendHeaderJSON(t *testing.T) {
	t.Parallel()
	for _, f := range jsonForks(t) {
		t.Run(f.name, func(t *testing.T) {
			h := f.block.Header()
			got := AppendHeader([]byte("prefix"), h)[len("prefix"):]
			jsonCheck(t, "header", got, jsonMarshalRef(t, refMarshalHeader(h)))
			jsonCheckSortedKeys(t, "header", got)
		})
	}
}

// TestAppendHeaderForkFieldsJSON checks, independently of the reference copy, which optional
// header fields each fork writes.
func TestAppendHeaderForkFieldsJSON(t *testing.T) {
	t.Parallel()
	optional := []string{"baseFeePerGas", "withdrawalsRoot", "blobGasUsed", "excessBlobGas", "parentBeaconBlockRoot", "requestsHash", "blockAccessListHash", "slotNumber"}
	want := map[string][]string{
		"frontier":  nil,
		"byzantium": nil,
		"berlin":    nil,
		"london":    {"baseFeePerGas"},
		"shanghai":  {"baseFeePerGas", "withdrawalsRoot"},
		"cancun":    {"baseFeePerGas", "withdrawalsRoot", "blobGasUsed", "excessBlobGas", "parentBeaconBlockRoot"},
		"prague":    {"baseFeePerGas", "withdrawalsRoot", "blobGasUsed", "excessBlobGas", "parentBeaconBlockRoot", "requestsHash"},
		"amsterdam": optional,
		"op-jovian": {"baseFeePerGas", "withdrawalsRoot", "blobGasUsed", "excessBlobGas", "parentBeaconBlockRoot", "requestsHash"},
	}
	for _, f := range jsonForks(t) {
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(AppendHeader(nil, f.block.Header()), &obj); err != nil {
			t.Fatalf("%s: %v", f.name, err)
		}
		wantSet := map[string]bool{}
		for _, k := range want[f.name] {
			wantSet[k] = true
		}
		for _, k := range optional {
			if _, has := obj[k]; has != wantSet[k] {
				t.Errorf("%s: has %q = %v, want %v", f.name, k, has, wantSet[k])
			}
		}
		if _, has := obj["totalDifficulty"]; has {
			t.Errorf("%s: header has totalDifficulty; geth v1.17 dropped it", f.name)
		}
	}
}

func TestAppendBlockJSON(t *testing.T) {
	t.Parallel()
	partial := common.HexToHash("0xfeedfacefeedfacefeedfacefeedfacefeedfacefeedfacefeedfacefeedface")
	variants := []struct {
		name string
		opts BlockOptions
	}{
		{"sealed", BlockOptions{}},
		{"hash override", BlockOptions{Hash: &partial}},
		{"in progress", BlockOptions{Hash: &partial, InProgress: true}},
		{"with receipts", BlockOptions{Receipts: types.Receipts{}}}, // filled per fork below
	}
	for _, f := range jsonForks(t) {
		for _, v := range variants {
			for _, fullTx := range []bool{false, true} {
				t.Run(fmt.Sprintf("fork=%s/%s/fullTx=%v", f.name, v.name, fullTx), func(t *testing.T) {
					opts := v.opts
					if opts.Receipts != nil {
						opts.Receipts = f.receipts
					}
					got := AppendBlock(nil, f.block, fullTx, f.config, opts)
					want := jsonMarshalRef(t, refMarshalBlock(f.block, fullTx, f.config, opts.Hash, opts.InProgress, opts.Receipts))
					jsonCheck(t, "block", got, want)
					jsonCheckSortedKeys(t, "block", got)
					jsonCheckBlockShape(t, got, f.block, fullTx, opts)
					// The same block from its parts, as eth_simulateV1 encodes it.
					hash := f.block.Hash()
					if opts.Hash != nil {
						hash = *opts.Hash
					}
					body := f.block.Body()
					parts := AppendBlockParts(nil, f.block.Header(), body, hash, f.block.Size(), fullTx, f.config, opts)
					jsonCheck(t, "block from parts", parts, want)
					if !fullTx { // the hashes alone, as eth_simulateV1 has them
						opts.TxHashes = nil
						for _, tx := range f.block.Transactions() {
							opts.TxHashes = append(opts.TxHashes, tx.Hash())
						}
						body.Transactions = nil
						hashesOnly := AppendBlockParts(nil, f.block.Header(), body, hash, f.block.Size(), fullTx, f.config, opts)
						jsonCheck(t, "block from parts and transaction hashes", hashesOnly, want)
					}
				})
			}
		}
	}
}

// jsonCheckBlockShape checks a block's JSON against rules stated independently of the reference
// copy: mandatory keys, hash, transaction list shape and location of full transactions.
func jsonCheckBlockShape(t *testing.T, got []byte, block *types.Block, fullTx bool, opts BlockOptions) {
	t.Helper()
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(got, &obj); err != nil {
		t.Fatal(err)
	}
	for _, k := range jsonWantBlockKeys {
		if _, ok := obj[k]; !ok {
			t.Errorf("block lacks %q", k)
		}
	}
	wantHash := block.Hash()
	if opts.Hash != nil {
		wantHash = *opts.Hash
	}
	if string(obj["hash"]) != `"`+wantHash.Hex()+`"` {
		t.Errorf("hash = %s, want %s", obj["hash"], wantHash.Hex())
	}
	if _, ok := obj["withdrawals"]; ok != (block.Withdrawals() != nil) {
		t.Errorf("withdrawals present = %v, block has withdrawals = %v", ok, block.Withdrawals() != nil)
	}
	var txs []json.RawMessage
	if err := json.Unmarshal(obj["transactions"], &txs); err != nil || len(txs) != len(block.Transactions()) {
		t.Fatalf("transactions: %d entries (err %v), want %d", len(txs), err, len(block.Transactions()))
	}
	for i, raw := range txs {
		if !fullTx {
			if string(raw) != `"`+block.Transactions()[i].Hash().Hex()+`"` {
				t.Errorf("transactions[%d] = %s, want the hash", i, raw)
			}
			continue
		}
		jsonCheckKeyOrder(t, "full transaction", raw, refRPCTxKeys)
		var tx struct {
			BlockHash        *common.Hash `json:"blockHash"`
			TransactionIndex *string      `json:"transactionIndex"`
		}
		if err := json.Unmarshal(raw, &tx); err != nil {
			t.Fatal(err)
		}
		switch {
		case opts.InProgress && tx.BlockHash != nil:
			t.Errorf("transactions[%d].blockHash = %v, want null in a block in progress", i, tx.BlockHash)
		case !opts.InProgress && (tx.BlockHash == nil || *tx.BlockHash != wantHash):
			t.Errorf("transactions[%d].blockHash = %v, want %v", i, tx.BlockHash, wantHash)
		}
		if tx.TransactionIndex == nil || *tx.TransactionIndex != fmt.Sprintf("%#x", i) {
			t.Errorf("transactions[%d].transactionIndex = %v", i, tx.TransactionIndex)
		}
	}
}

func TestAppendBlockEmptyJSON(t *testing.T) {
	t.Parallel()
	cfg := jsonChainConfig("prague")
	block := types.NewBlock(&types.Header{Number: nil, Difficulty: nil}, nil, nil, nil, cfg)
	for _, fullTx := range []bool{false, true} {
		got := AppendBlock(nil, block, fullTx, cfg, BlockOptions{})
		jsonCheck(t, "empty block", got, jsonMarshalRef(t, refMarshalBlock(block, fullTx, cfg, nil, false, nil)))
	}
}

// BenchmarkAppendBlockJSON encodes a Prague block with n transactions of all types.
func BenchmarkAppendBlockJSON(b *testing.B) {
	cfg := jsonChainConfig("prague")
	f := buildJSONFork(b, "prague", cfg)
	for _, n := range []int{0, 100} {
		var txs types.Transactions
		for len(txs) < n {
			txs = append(txs, f.block.Transactions()...)
		}
		block := f.block.WithBody(types.Body{Transactions: txs[:n], Withdrawals: f.block.Withdrawals()})
		for _, fullTx := range []bool{false, true} {
			b.Run(fmt.Sprintf("txs=%d/fullTx=%v", n, fullTx), func(b *testing.B) {
				buf := AppendBlock(nil, block, fullTx, cfg, BlockOptions{}) // warm caches
				b.ReportAllocs()
				b.ResetTimer()
				for b.Loop() {
					buf = AppendBlock(buf[:0], block, fullTx, cfg, BlockOptions{})
				}
				if len(buf) == 0 || buf[len(buf)-1] != '}' {
					b.Fatal("bad output")
				}
				b.SetBytes(int64(len(buf)))
			})
		}
	}
}
