package flashblocks_test

import (
	"encoding/json"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/trie"

	"github.com/flashrpc/flashrpc/internal/flashblocks"
)

func testBlock(t *testing.T, ntx int, parent common.Hash, time uint64) *types.Block {
	t.Helper()
	key, _ := crypto.GenerateKey()
	signer := types.LatestSignerForChainID(big.NewInt(1337))
	var txs []*types.Transaction
	for i := range ntx {
		to := common.Address{byte(i + 1)}
		tx, err := types.SignNewTx(key, signer, &types.DynamicFeeTx{ChainID: big.NewInt(1337), Nonce: uint64(i), To: &to, Gas: params.TxGas, GasFeeCap: big.NewInt(2e9), GasTipCap: big.NewInt(1e9)})
		if err != nil {
			t.Fatal(err)
		}
		txs = append(txs, tx)
	}
	blobGas, beacon, wroot := uint64(0), common.Hash{0xbe}, types.EmptyWithdrawalsHash
	h := &types.Header{
		ParentHash: parent, Number: big.NewInt(7), Time: time, GasLimit: 30_000_000, GasUsed: uint64(ntx) * params.TxGas,
		Coinbase: common.Address{0xfe}, MixDigest: common.Hash{0xaa}, Extra: []byte("flashrpc"), BaseFee: big.NewInt(875),
		Root: common.Hash{0x01}, Bloom: types.Bloom{0x02}, WithdrawalsHash: &wroot, BlobGasUsed: &blobGas, ExcessBlobGas: &blobGas,
		ParentBeaconRoot: &beacon, Difficulty: new(big.Int),
	}
	return types.NewBlock(h, &types.Body{Transactions: txs, Withdrawals: types.Withdrawals{}}, nil, trie.NewStackTrie(nil), params.MergedTestChainConfig)
}

// TestFromBlock converts partial blocks into payloads: base at index 0 only, the new
// transactions only, cumulative fields from the header, one payload id per block.
func TestFromBlock(t *testing.T) {
	t.Parallel()
	parent := common.Hash{0x11}
	block := testBlock(t, 3, parent, 100)
	p0, err := flashblocks.FromBlock(testBlock(t, 0, parent, 100), 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	p2, err := flashblocks.FromBlock(block, 2, 1)
	if err != nil {
		t.Fatal(err)
	}
	if p0.Base == nil || p2.Base != nil {
		t.Fatalf("base at index 0: %v, at index 2: %v", p0.Base != nil, p2.Base != nil)
	}
	b := p0.Base
	if b.ParentHash != parent || b.BlockNumber != 7 || b.Timestamp != 100 || b.GasLimit != 30_000_000 ||
		b.FeeRecipient != (common.Address{0xfe}) || b.PrevRandao != (common.Hash{0xaa}) ||
		string(b.ExtraData) != "flashrpc" || b.BaseFeePerGas.ToInt().Int64() != 875 || b.ParentBeaconBlockRoot != (common.Hash{0xbe}) {
		t.Fatalf("base %+v", b)
	}
	if p0.PayloadID != p2.PayloadID {
		t.Fatalf("payload ids differ within a block: %s, %s", p0.PayloadID, p2.PayloadID)
	}
	if other := flashblocks.PayloadIDOf(testBlock(t, 0, parent, 101).Header()); other == p0.PayloadID {
		t.Fatal("another timestamp gave the same payload id")
	}
	d := p2.Diff
	if len(d.Transactions) != 2 {
		t.Fatalf("index 2 added transactions 1 and 2, got %d", len(d.Transactions))
	}
	for i, enc := range d.Transactions {
		var tx types.Transaction
		if err := tx.UnmarshalBinary(enc); err != nil || tx.Hash() != block.Transactions()[i+1].Hash() {
			t.Fatalf("transaction %d: %v", i, err)
		}
	}
	if d.BlockHash != block.Hash() || d.StateRoot != block.Root() || d.ReceiptsRoot != block.ReceiptHash() ||
		d.LogsBloom != block.Bloom() || uint64(d.GasUsed) != block.GasUsed() || d.WithdrawalsRoot != types.EmptyWithdrawalsHash ||
		d.BlobGasUsed == nil || *d.BlobGasUsed != 0 || d.Withdrawals == nil {
		t.Fatalf("diff %+v", d)
	}
	if p2.Metadata.BlockNumber != 7 {
		t.Fatalf("metadata block number %d", p2.Metadata.BlockNumber)
	}
	// The metadata is exactly what Base sends since Azul: the block number, no receipts,
	// balances or access list (decisions.md "Building blocks as Base does").
	for _, p := range []*flashblocks.Payload{p0, p2} {
		enc, err := flashblocks.Encode(p) // what the publisher sends
		if err != nil {
			t.Fatal(err)
		}
		var msg struct{ Metadata json.RawMessage }
		if err := json.Unmarshal(enc, &msg); err != nil {
			t.Fatal(err)
		}
		if string(msg.Metadata) != `{"block_number":7}` {
			t.Fatalf("metadata %s, want {\"block_number\":7}", msg.Metadata)
		}
	}
	roundTrip(t, p0)
	roundTrip(t, p2)
	if _, err := flashblocks.FromBlock(block, 1, 4); err == nil {
		t.Fatal("first new transaction past the end accepted")
	}
}
