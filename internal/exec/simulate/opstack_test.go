package simulate

import (
	"bytes"
	"encoding/binary"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/holiman/uint256"
)

// TestDAFootprint: the DA footprint computed from the transactions' encodings is op-geth's
// types.CalcDAFootprint of the L1-attributes deposit and the transactions, for each kind of
// transaction a simulation builds, with data of every kind of compressibility; and the
// first Jovian block (Isthmus-length attributes) has none, and refuses calls, as op-geth.
func TestDAFootprint(t *testing.T) {
	t.Parallel()
	jovian := append(bytes.Clone(types.JovianL1AttributesSelector), make([]byte, types.JovianL1AttributesLen-4)...)
	binary.BigEndian.PutUint16(jovian[types.JovianL1AttributesLen-2:], 400)
	info := types.NewTx(&types.DepositTx{To: &common.Address{0x42}, Gas: 1_000_000, Data: jovian})
	to := common.Address{0xaa}
	random := make([]byte, 700)
	for i := range random {
		random[i] = byte(i*131 + i*i*7)
	}
	var txs []*types.Transaction
	for i, data := range [][]byte{nil, {0x01}, make([]byte, 300), random, bytes.Repeat([]byte{0xab, 0xcd}, 90)} {
		txs = append(txs,
			types.NewTx(&types.DynamicFeeTx{ChainID: big.NewInt(8453), Nonce: uint64(i), Gas: 50_000, To: &to, Data: data, Value: big.NewInt(int64(i))}),
			types.NewTx(&types.LegacyTx{Nonce: uint64(i), Gas: 21_000, To: &to, Data: data, GasPrice: big.NewInt(1)}),
			types.NewTx(&types.AccessListTx{ChainID: big.NewInt(8453), Nonce: uint64(i), Gas: 30_000, To: &to, Data: data, AccessList: types.AccessList{{Address: to, StorageKeys: []common.Hash{{1}}}}}),
			types.NewTx(&types.SetCodeTx{ChainID: uint256.NewInt(8453), Nonce: uint64(i), Gas: 60_000, To: to, Data: data, AuthList: []types.SetCodeAuthorization{{Address: to, Nonce: 3}}}),
		)
	}
	for n := 0; n <= len(txs); n++ {
		encs := make(encodedTxs, n)
		for i, tx := range txs[:n] {
			encs[i], _ = encodeTx(nil, tx, nil)
		}
		want, err := types.CalcDAFootprint(append([]*types.Transaction{info}, txs[:n]...))
		if err != nil {
			t.Fatal(err)
		}
		got, err := daFootprint(info, encs)
		if err != nil || got != want {
			t.Fatalf("%d transactions: footprint %d, %v; op-geth's %d", n, got, err, want)
		}
	}

	isthmus := types.NewTx(&types.DepositTx{To: &common.Address{0x42}, Data: make([]byte, types.IsthmusL1AttributesLen)})
	if got, err := daFootprint(isthmus, nil); got != 0 || err != nil {
		t.Fatalf("activation block without calls: %d, %v; want 0", got, err)
	}
	enc, _ := encodeTx(nil, txs[0], nil)
	_, wantErr := types.CalcDAFootprint([]*types.Transaction{isthmus, txs[0]})
	if _, err := daFootprint(isthmus, encodedTxs{enc}); err == nil || wantErr == nil || err.Error() != wantErr.Error() {
		t.Fatalf("activation block with a call: error %v, op-geth's %v", err, wantErr)
	}
}

// TestEstimatedDASize: the DA size of a FastLZ size is op-geth's, around the minimum size
// (the model's intercept is negative), across the range of real transactions, and for sizes
// past the int64 path's bound.
func TestEstimatedDASize(t *testing.T) {
	t.Parallel()
	sizes := []uint64{1 << 20, 1<<32 - 1, 1 << 32, 1<<40 + 7, 1<<62 + 3}
	for n := uint64(0); n < 20_000; n++ {
		sizes = append(sizes, n)
	}
	for _, n := range sizes {
		want := types.RollupCostData{FastLzSize: n}.EstimatedDASize()
		if got := estimatedDASize(n); !want.IsUint64() || got != want.Uint64() {
			t.Fatalf("FastLZ size %d: DA size %d, op-geth %s", n, got, want)
		}
	}
}
