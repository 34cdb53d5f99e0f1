package preconf

import (
	"errors"
	"math/big"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
)

// TestFirstMismatch compares pre-confirmed transactions and receipts with sealed blocks that
// keep, extend or depart from them, and checks where and why the first difference is found.
func TestFirstMismatch(t *testing.T) {
	t.Parallel()
	tx := func(n uint64) *types.Transaction {
		return types.NewTx(&types.LegacyTx{Nonce: n, GasPrice: big.NewInt(1), Gas: 21000, To: &common.Address{0x01}})
	}
	receipt := func(cum uint64, status uint64, logData ...string) *types.Receipt {
		r := &types.Receipt{CumulativeGasUsed: cum, Status: status}
		for _, d := range logData {
			r.Logs = append(r.Logs, &types.Log{Address: common.Address{0xec}, Data: []byte(d)})
		}
		return r
	}
	block := func(txs ...*types.Transaction) *types.Block {
		return types.NewBlockWithHeader(&types.Header{Number: big.NewInt(5)}).WithBody(types.Body{Transactions: txs})
	}
	a, b, c := tx(0), tx(1), tx(2)
	pre := &Snapshot{Block: block(a, b), Receipts: types.Receipts{receipt(21000, 1, "a"), receipt(42000, 1)}}
	cases := []struct {
		name     string
		sealed   *types.Block
		receipts types.Receipts
		execErr  error
		index    int    // -1: no mismatch
		reason   string // a part of the reason
	}{
		{"same", block(a, b), types.Receipts{receipt(21000, 1, "a"), receipt(42000, 1)}, nil, -1, ""},
		{"extended", block(a, b, c), types.Receipts{receipt(21000, 1, "a"), receipt(42000, 1), receipt(63000, 1)}, nil, -1, ""},
		{"shorter", block(a), types.Receipts{receipt(21000, 1, "a")}, nil, 1, "ends before"},
		{"other transaction", block(a, c), types.Receipts{receipt(21000, 1, "a"), receipt(42000, 1)}, nil, 1, "another transaction"},
		{"reordered", block(b, a), types.Receipts{receipt(21000, 1), receipt(42000, 1, "a")}, nil, 0, "another transaction"},
		{"status", block(a, b), types.Receipts{receipt(21000, 1, "a"), receipt(42000, 0)}, nil, 1, "status 0"},
		{"gas", block(a, b), types.Receipts{receipt(21000, 1, "a"), receipt(43000, 1)}, nil, 1, "cumulative gas used 43000"},
		{"logs", block(a, b), types.Receipts{receipt(21000, 1, "x"), receipt(42000, 1)}, nil, 0, "other logs"},
		{"not executed", block(a, b), nil, errors.New("boom"), 0, "does not execute: boom"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := firstMismatch(pre, tc.sealed, tc.receipts, tc.execErr)
			if tc.index < 0 {
				if m != nil {
					t.Fatalf("mismatch %+v, want none", m)
				}
				return
			}
			if m == nil || m.Index != tc.index || !strings.Contains(m.Reason, tc.reason) {
				t.Fatalf("mismatch %+v, want index %d, reason with %q", m, tc.index, tc.reason)
			}
			if m.Preconfirmed != pre.Block.Transactions()[tc.index].Hash() {
				t.Fatalf("pre-confirmed %s", m.Preconfirmed)
			}
			if txs := tc.sealed.Transactions(); tc.index < len(txs) && m.Sealed != txs[tc.index].Hash() || tc.index >= len(txs) && m.Sealed != (common.Hash{}) {
				t.Fatalf("sealed %s", m.Sealed)
			}
		})
	}
	if m := firstMismatch(nil, block(a), nil, nil); m != nil {
		t.Fatalf("mismatch %+v without pre-confirmations", m)
	}
}
