package chain

import (
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"
)

// blockOfReceipts returns n derived receipts of one log each, with their transactions: a
// sealed block of n token transfers, as the announcement at a block boundary sees it.
func blockOfReceipts(tb testing.TB, n int) (types.Receipts, types.Transactions) {
	tb.Helper()
	receipts := make(types.Receipts, n)
	txs := make(types.Transactions, n)
	for i := range receipts {
		to := common.Address{0xee, byte(i)}
		txs[i] = types.NewTx(&types.DynamicFeeTx{ChainID: big.NewInt(1), Nonce: uint64(i), To: &to, Gas: 60_000, GasFeeCap: big.NewInt(2e9), GasTipCap: big.NewInt(1)})
		receipts[i] = &types.Receipt{Status: 1, CumulativeGasUsed: uint64(i+1) * 50_000, Logs: []*types.Log{{
			Address: to, Topics: []common.Hash{{0xdd}, {byte(i)}, {0xaa}}, Data: make([]byte, 32),
		}}}
	}
	if err := receipts.DeriveFields(params.TestChainConfig, common.Hash{1}, 7, 100, big.NewInt(1e9), nil, txs); err != nil {
		tb.Fatal(err)
	}
	return receipts, txs
}

// TestSealedReceipts: the copies carry the sealed block's hash, in the receipts and their
// logs, and everything else as given; the receipts given are left as they were.
func TestSealedReceipts(t *testing.T) {
	t.Parallel()
	given, _ := blockOfReceipts(t, 3)
	sealed := common.Hash{2}
	got := sealedReceipts(sealed, given)
	for i, r := range got {
		if r == given[i] || r.BlockHash != sealed || given[i].BlockHash != (common.Hash{1}) {
			t.Fatalf("receipt %d: a copy with block hash %s (given %s)", i, r.BlockHash, given[i].BlockHash)
		}
		if r.TxHash != given[i].TxHash || r.Bloom != given[i].Bloom || r.GasUsed != given[i].GasUsed || len(r.Logs) != 1 {
			t.Fatalf("receipt %d: fields changed", i)
		}
		l, g := r.Logs[0], given[i].Logs[0]
		if cap(r.Logs) != len(r.Logs) {
			t.Fatalf("receipt %d: its logs can be appended to over the next receipt's", i)
		}
		if l == g || l.BlockHash != sealed || g.BlockHash != (common.Hash{1}) || l.Index != g.Index || l.TxHash != g.TxHash {
			t.Fatalf("receipt %d: log copied as %+v from %+v", i, l, g)
		}
	}
}

// BenchmarkSealedReceipts: the receipts announced at a block boundary, for a block of 10,000
// one-log transfers, as copies with the block hash set (now) and, standing in for the code
// before, as those copies derived again with DeriveFields (without the OP Stack's L1 fields,
// which cost more).
func BenchmarkSealedReceipts(b *testing.B) {
	given, txs := blockOfReceipts(b, 10_000)
	b.Run("impl=sealed", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if out := sealedReceipts(common.Hash{2}, given); len(out) != len(given) {
				b.Fatalf("%d receipts of %d", len(out), len(given))
			}
		}
	})
	b.Run("impl=DeriveFields", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			out := sealedReceipts(common.Hash{2}, given) // the copies, as before
			if err := out.DeriveFields(params.TestChainConfig, common.Hash{2}, 7, 100, big.NewInt(1e9), nil, txs); err != nil {
				b.Fatal(err)
			}
		}
	})
}
