package sequencer_test

import (
	"context"
	"encoding/json"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"

	"github.com/flashrpc/flashrpc/internal/flashblocks"
	"github.com/flashrpc/flashrpc/internal/oprollup"
	"github.com/flashrpc/flashrpc/internal/sequencer"
)

// TestFeedPayloadFormats turns the dev sequencer's pre-confirmations of an OP Stack block into
// feed messages of both formats: Base's commits to the partial block; subblocks carry zero
// roots and hashes, the same cumulative receipts root and gas, only the transactions each
// pre-confirmation adds, their receipts and the balances it left.
func TestFeedPayloadFormats(t *testing.T) {
	ctx := context.Background()
	n := newOPNode(t, 0, 2)
	to := common.Address{0x77}
	first := n.send(t, 0, 0, &to, big.NewInt(1e9), params.TxGas, nil)
	if _, err := n.seq.Preconfirm(ctx); err != nil {
		t.Fatal(err)
	}
	second := n.send(t, 1, 0, &to, big.NewInt(2e9), params.TxGas, nil)
	snap, err := n.seq.Preconfirm(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if snap.Index != 2 || len(snap.Block.Transactions()) != 3 {
		t.Fatalf("pre-confirmation %d with %d transactions, want 2 with the deposit and two transfers", snap.Index, len(snap.Block.Transactions()))
	}
	base, err := sequencer.FeedPayload(snap, flashblocks.FormatBase)
	if err != nil {
		t.Fatal(err)
	}
	if !base.Diff.HasRoots() || base.Diff.BlockHash != snap.Block.Hash() || base.Diff.StateRoot != snap.Block.Root() {
		t.Fatalf("Base's format without the partial block's roots: %+v", base.Diff)
	}
	sub, err := sequencer.FeedPayload(snap, flashblocks.FormatSubblocks)
	if err != nil {
		t.Fatal(err)
	}
	enc, err := flashblocks.Encode(sub)
	if err != nil {
		t.Fatal(err)
	}
	p, err := flashblocks.Decode(enc)
	if err != nil {
		t.Fatal(err)
	}
	d := p.Diff
	if d.HasRoots() || d.StateRoot != (common.Hash{}) || d.BlockHash != (common.Hash{}) || d.WithdrawalsRoot != (common.Hash{}) {
		t.Fatalf("subblock with roots: %+v", d)
	}
	if d.ReceiptsRoot != snap.Block.ReceiptHash() || uint64(d.GasUsed) != snap.Block.GasUsed() || d.LogsBloom != snap.Block.Bloom() {
		t.Fatalf("subblock's cumulative fields differ from the partial block's: %+v", d)
	}
	if d.BlobGasUsed == nil || uint64(*d.BlobGasUsed) != *snap.Block.Header().BlobGasUsed {
		t.Fatalf("blob_gas_used (DA footprint) %v, block %v", d.BlobGasUsed, snap.Block.Header().BlobGasUsed)
	}
	if len(d.Transactions) != 1 {
		t.Fatalf("%d transactions, want the one this pre-confirmation added", len(d.Transactions))
	}
	var tx types.Transaction
	if err := tx.UnmarshalBinary(d.Transactions[0]); err != nil || tx.Hash() != second.Hash() {
		t.Fatalf("transaction %v, want %s", err, second.Hash())
	}
	var receipts map[common.Hash]struct {
		Status            hexutil.Uint64
		CumulativeGasUsed hexutil.Uint64
	}
	if err := json.Unmarshal(p.Metadata.Extra["receipts"], &receipts); err != nil {
		t.Fatal(err)
	}
	r, ok := receipts[second.Hash()]
	if len(receipts) != 1 || !ok || r.Status != 1 || uint64(r.CumulativeGasUsed) != snap.Receipts[2].CumulativeGasUsed {
		t.Fatalf("receipts %+v, want the second transfer's", receipts)
	}
	if _, ok := receipts[first.Hash()]; ok {
		t.Fatal("receipt of an earlier pre-confirmation's transaction")
	}
	var balances map[common.Address]*hexutil.Big
	if err := json.Unmarshal(p.Metadata.Extra["new_account_balances"], &balances); err != nil {
		t.Fatal(err)
	}
	sender := crypto.PubkeyToAddress(n.keys[1].PublicKey)
	for _, a := range []common.Address{sender, to, snap.Block.Coinbase(), oprollup.BaseFeeVault, oprollup.L1FeeVault} {
		got, ok := balances[a]
		if !ok {
			t.Fatalf("no balance of %s in %v", a, balances)
		}
		var want *big.Int
		snap.ReadState(func(st *state.StateDB) { want = st.GetBalance(a).ToBig() })
		if got.ToInt().Cmp(want) != 0 {
			t.Fatalf("balance of %s: %s, state has %s", a, got, want)
		}
	}
	if bal := balances[to].ToInt(); bal.Cmp(big.NewInt(3e9)) != 0 {
		t.Fatalf("recipient's balance %s, want both transfers", bal)
	}
	if _, ok := balances[crypto.PubkeyToAddress(n.keys[0].PublicKey)]; ok {
		t.Fatal("balance of the earlier pre-confirmation's sender")
	}
}
