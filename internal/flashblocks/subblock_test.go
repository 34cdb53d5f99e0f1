package flashblocks_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"math/big"
	"os"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"

	"github.com/flashrpc/flashrpc/internal/flashblocks"
)

func readFixture(t *testing.T, name string) []byte {
	t.Helper()
	raw, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// TestDecodeSubblocks decodes the subblocks fixture (testdata/README.md): zero roots, the
// DA footprint in blob_gas_used, the post-execution transaction of the last subblock, the
// metadata kept as sent; each round-trips through JSON text and brotli.
func TestDecodeSubblocks(t *testing.T) {
	t.Parallel()
	var ps []*flashblocks.Payload
	for i, name := range []string{"op-mainnet-subblock-0.json", "op-mainnet-subblock-1.json", "op-mainnet-subblock-2.json"} {
		p, err := flashblocks.Decode(readFixture(t, name))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if p.Index != uint64(i) || p.Metadata.BlockNumber != 144000001 || p.PayloadID.String() != "0x0a5c1e2d3b4f6071" {
			t.Fatalf("%s: index %d, block %d, payload %s", name, p.Index, p.Metadata.BlockNumber, p.PayloadID)
		}
		d := &p.Diff
		if d.HasRoots() || d.StateRoot != (common.Hash{}) || d.BlockHash != (common.Hash{}) || d.WithdrawalsRoot != (common.Hash{}) {
			t.Fatalf("%s: roots published: state %s, hash %s, withdrawals %s", name, d.StateRoot, d.BlockHash, d.WithdrawalsRoot)
		}
		if d.Withdrawals == nil || len(d.Withdrawals) != 0 || len(d.Transactions) != 1 {
			t.Fatalf("%s: withdrawals %v, %d transactions", name, d.Withdrawals, len(d.Transactions))
		}
		if want := []uint64{0, 0x2ee0, 0x5dc0}[i]; d.BlobGasUsed == nil || uint64(*d.BlobGasUsed) != want {
			t.Fatalf("%s: blob_gas_used (DA footprint) %v, want %#x", name, d.BlobGasUsed, want)
		}
		var tx types.Transaction
		if err := tx.UnmarshalBinary(d.Transactions[0]); err != nil {
			t.Fatalf("%s: transaction: %v", name, err)
		}
		if _, ok := p.Metadata.Extra["receipts"]; !ok {
			t.Fatalf("%s: metadata receipts not kept", name)
		}
		if _, ok := p.Metadata.Extra["new_account_balances"]; !ok {
			t.Fatalf("%s: metadata new_account_balances not kept", name)
		}
		roundTrip(t, p)
		ps = append(ps, p)
	}
	if ps[0].Base == nil || ps[0].Base.BlockNumber != 144000001 || ps[0].Base.BaseFeePerGas.ToInt().Uint64() != 0xfc {
		t.Fatalf("index 0 base %+v", ps[0].Base)
	}
	for _, p := range ps[:2] {
		if pe, err := p.Diff.PostExec(); pe != nil || err != nil || p.Diff.PostExecTx != nil {
			t.Fatalf("index %d: post-exec transaction %v, %v", p.Index, pe, err)
		}
	}
	pe, err := ps[2].Diff.PostExec()
	if err != nil {
		t.Fatal(err)
	}
	if pe.Version != 1 || pe.BlockNumber != 144000001 || len(pe.Fields) != 1 ||
		pe.Hash != crypto.Keccak256Hash(common.FromHex("0x7dd1018408954401cac401821068c4038203e8")) {
		t.Fatalf("post-exec transaction %+v", pe)
	}
	enc, err := flashblocks.Encode(ps[2])
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(enc, []byte(`"post_exec_tx":"0x7dd1018408954401cac401821068c4038203e8"`)) {
		t.Fatalf("post_exec_tx not written back: %s", enc)
	}
	if enc, _ := flashblocks.Encode(ps[1]); bytes.Contains(enc, []byte("post_exec_tx")) {
		t.Fatalf("absent post_exec_tx written: %s", enc)
	}
}

func TestDecodePostExecTxRejects(t *testing.T) {
	t.Parallel()
	for name, enc := range map[string]string{
		"empty":         "",
		"another type":  "0x02d1018408954401cac401821068c4038203e8",
		"not RLP":       "0x7dff",
		"no block":      "0x7dc101",
		"trailing junk": "0x7dd1018408954401cac401821068c4038203e800",
	} {
		t.Run(name, func(t *testing.T) {
			if pe, err := flashblocks.DecodePostExecTx(common.FromHex(enc)); err == nil {
				t.Fatalf("decoded %+v", pe)
			}
		})
	}
	if _, err := flashblocks.DecodePostExecTx([]byte{0x02, 0xc0}); !errors.Is(err, flashblocks.ErrNotPostExec) {
		t.Fatalf("type 2: %v, want %v", err, flashblocks.ErrNotPostExec)
	}
}

// TestSubblock converts partial blocks into subblocks: zero roots and hash on the wire, only
// the added transactions, their receipts and the balances in metadata.
func TestSubblock(t *testing.T) {
	t.Parallel()
	parent := common.Hash{0x11}
	block := testBlock(t, 3, parent, 100)
	txs := block.Transactions()
	var receipts types.Receipts
	for i, tx := range txs {
		r := &types.Receipt{Type: tx.Type(), Status: types.ReceiptStatusSuccessful, CumulativeGasUsed: uint64(i+1) * params.TxGas}
		if i == 2 {
			r.Logs = []*types.Log{{Address: common.Address{0xec}, Topics: []common.Hash{{0x01}}, Data: []byte{0xab}}}
		}
		receipts = append(receipts, r)
	}
	balances := map[common.Address]*big.Int{{0xaa}: big.NewInt(1e18)}
	p, err := flashblocks.Subblock(block, receipts, balances, 2, 1)
	if err != nil {
		t.Fatal(err)
	}
	base, err := flashblocks.FromBlock(block, 2, 1)
	if err != nil {
		t.Fatal(err)
	}
	d := p.Diff
	if d.HasRoots() || d.StateRoot != (common.Hash{}) || d.BlockHash != (common.Hash{}) || d.WithdrawalsRoot != (common.Hash{}) {
		t.Fatalf("roots published: %+v", d)
	}
	if d.ReceiptsRoot != base.Diff.ReceiptsRoot || d.GasUsed != base.Diff.GasUsed || d.LogsBloom != base.Diff.LogsBloom || len(d.Transactions) != 2 || p.Base != nil {
		t.Fatalf("cumulative fields or transactions differ from the block's: %+v", d)
	}
	enc, err := flashblocks.Encode(p)
	if err != nil {
		t.Fatal(err)
	}
	zero := `"0x0000000000000000000000000000000000000000000000000000000000000000"`
	for _, field := range []string{"state_root", "block_hash", "withdrawals_root"} {
		if !bytes.Contains(enc, []byte(`"`+field+`":`+zero)) {
			t.Fatalf("%s not written as zero: %s", field, enc)
		}
	}
	if !bytes.Contains(enc, []byte(`"withdrawals":[]`)) {
		t.Fatalf("withdrawals not []: %s", enc)
	}
	var meta struct {
		BlockNumber uint64                     `json:"block_number"`
		Balances    map[common.Address]string  `json:"new_account_balances"`
		Receipts    map[common.Hash]rawReceipt `json:"receipts"`
	}
	var msg struct{ Metadata json.RawMessage }
	if err := json.Unmarshal(enc, &msg); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(msg.Metadata, &meta); err != nil {
		t.Fatal(err)
	}
	if meta.BlockNumber != 7 || len(meta.Balances) != 1 || meta.Balances[common.Address{0xaa}] != "0xde0b6b3a7640000" {
		t.Fatalf("metadata %s", msg.Metadata)
	}
	if len(meta.Receipts) != 2 {
		t.Fatalf("receipts of %d transactions, want the 2 added: %s", len(meta.Receipts), msg.Metadata)
	}
	r, ok := meta.Receipts[txs[2].Hash()]
	if !ok || r.Type != "0x2" || r.Status != "0x1" || r.CumulativeGasUsed != hexutil.EncodeUint64(3*params.TxGas) ||
		len(r.Logs) != 1 || r.Logs[0].Address != (common.Address{0xec}) || r.Logs[0].Data != "0xab" {
		t.Fatalf("receipt of transaction 2: %+v", r)
	}
	if _, ok := meta.Receipts[txs[0].Hash()]; ok {
		t.Fatal("receipt of a transaction an earlier subblock added")
	}
	roundTrip(t, p)
	if _, err := flashblocks.Subblock(block, receipts[:2], nil, 2, 1); err == nil {
		t.Fatal("fewer receipts than transactions accepted")
	}
}

type rawReceipt struct {
	Type, Status, CumulativeGasUsed string
	Logs                            []struct {
		Address common.Address
		Topics  []common.Hash
		Data    string
	}
}

func TestParseFormat(t *testing.T) {
	t.Parallel()
	for _, f := range []flashblocks.Format{flashblocks.FormatBase, flashblocks.FormatSubblocks} {
		got, err := flashblocks.ParseFormat(f.String())
		if err != nil || got != f {
			t.Fatalf("%s: %v, %v", f, got, err)
		}
	}
	if _, err := flashblocks.ParseFormat("flashblocks"); err == nil || !strings.Contains(err.Error(), "base or subblocks") {
		t.Fatalf("unknown format: %v", err)
	}
}
