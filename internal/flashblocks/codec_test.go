package flashblocks_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/flashrpc/flashrpc/internal/flashblocks"
)

// loadReference reads one of the reference messages (testdata/README.md) and replaces the
// values the reference shortened with "…": blooms become the zero bloom, transactions the
// complete hex digits before the "…".
func loadReference(t *testing.T, name string) []byte {
	t.Helper()
	raw, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	var msg map[string]any
	if err := json.Unmarshal(raw, &msg); err != nil {
		t.Fatalf("%s is not JSON: %v", name, err)
	}
	diff := msg["diff"].(map[string]any)
	if bloom := diff["logs_bloom"].(string); strings.Contains(bloom, "…") {
		diff["logs_bloom"] = hexutil.Encode(make([]byte, types.BloomByteLength))
	}
	for i, tx := range diff["transactions"].([]any) {
		s := tx.(string)
		if cut, _, found := strings.Cut(s, "…"); found {
			diff["transactions"].([]any)[i] = cut
		}
	}
	out, err := json.Marshal(msg)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestDecodeReference decodes the real Unichain Sepolia messages of the reference and checks
// every complete value, then round-trips them through both encodings.
func TestDecodeReference(t *testing.T) {
	p0, err := flashblocks.Decode(loadReference(t, "unichain-sepolia-35535698-0.json"))
	if err != nil {
		t.Fatalf("index 0: %v", err)
	}
	p1, err := flashblocks.Decode(loadReference(t, "unichain-sepolia-35535698-1.json"))
	if err != nil {
		t.Fatalf("index 1: %v", err)
	}
	wantID := "0x03c446f063e3735a"
	if p0.PayloadID.String() != wantID || p1.PayloadID != p0.PayloadID {
		t.Fatalf("payload ids %s, %s; want %s for both", p0.PayloadID, p1.PayloadID, wantID)
	}
	if p0.Index != 0 || p1.Index != 1 {
		t.Fatalf("indices %d, %d", p0.Index, p1.Index)
	}
	if p1.Base != nil {
		t.Fatal(`index 1 ("base": null) decoded with a base`)
	}
	b := p0.Base
	switch {
	case b == nil:
		t.Fatal("index 0 without base")
	case b.ParentBeaconBlockRoot != common.HexToHash("0xf6d335a6b2b4fd8fb539cd51a49769df4d53c31a90c54dd270e54542638ff101"),
		b.ParentHash != common.HexToHash("0x06ff95a9cd23b0328da74a984aa986b2e01d377dab1825f1029e39ece6c4a3ea"),
		b.FeeRecipient != common.HexToAddress("0x4200000000000000000000000000000000000011"),
		b.PrevRandao != common.HexToHash("0x8beee738d20a9d77c5f27e9cb799ebe5b536f0985efad5f7d77ebff47f092c4a"),
		b.BlockNumber != 0x21e3b52, b.GasLimit != 0x3938700, b.Timestamp != 0x690be89e,
		!bytes.Equal(b.ExtraData, common.FromHex("0x00000000320000000c")),
		b.BaseFeePerGas.ToInt().Uint64() != 0x33:
		t.Fatalf("index 0 base: %+v", b)
	}
	// metadata.block_number (decimal) names the same block as base.block_number (hex).
	if p0.Metadata.BlockNumber != 35535698 || p1.Metadata.BlockNumber != uint64(b.BlockNumber) {
		t.Fatalf("metadata block numbers %d, %d; want %d", p0.Metadata.BlockNumber, p1.Metadata.BlockNumber, uint64(b.BlockNumber))
	}
	if _, ok := p1.Metadata.Extra["receipts"]; !ok {
		t.Fatal("free-form metadata (receipts) was not kept")
	}
	d0, d1 := p0.Diff, p1.Diff
	switch {
	case d0.StateRoot != common.HexToHash("0xb29a9bcae8cf3ae6d68985fcd70db80b3818cd629c9d5da0bb116451739b2078"),
		d0.ReceiptsRoot != common.HexToHash("0x91d8ad10740ccfc1bd848fba0e02668d95769c08eeea30f10698692ba86c6159"),
		d0.GasUsed != 0x10994,
		d0.BlockHash != common.HexToHash("0xa66f8562a861f906a2438d7d6ba79495640d98d9c6922b9605c54b57f97a345c"),
		len(d0.Transactions) != 2, d0.Transactions[0][0] != 0x7e, d0.Transactions[1][0] != types.DynamicFeeTxType:
		t.Fatalf("index 0 diff: %+v", d0)
	case d1.StateRoot != common.HexToHash("0xfb1794f74d405b345672c57a5053c6105cc55c8e63f96fb0db5b0260df42413a"),
		d1.GasUsed != 0x18f7d, len(d1.Transactions) != 1,
		d1.BlockHash != common.HexToHash("0x67b0521ebfcb03d6ce2b6e1bad9c9c66795365f63ad8dc51e1e8f582a5ab7821"):
		t.Fatalf("index 1 diff: %+v", d1)
	}
	for _, d := range []flashblocks.Diff{d0, d1} {
		if d.Withdrawals == nil || len(d.Withdrawals) != 0 || d.BlobGasUsed != nil ||
			d.WithdrawalsRoot != common.HexToHash("0x62ed62e0391b081bf172f287fbbe75e87d8a6c22f1d3b1f1aef4788c134633d2") {
			t.Fatalf("withdrawals %v, root %s, blob gas %v", d.Withdrawals, d.WithdrawalsRoot, d.BlobGasUsed)
		}
	}
	for _, p := range []*flashblocks.Payload{p0, p1} {
		roundTrip(t, p)
	}
}

// roundTrip encodes p, decodes it from JSON text and from brotli, and requires the same
// payload and the same bytes again.
func roundTrip(t *testing.T, p *flashblocks.Payload) {
	t.Helper()
	enc, err := flashblocks.Encode(p)
	if err != nil {
		t.Fatal(err)
	}
	if hasBase := bytes.Contains(enc, []byte(`"base"`)); hasBase != (p.Index == 0) {
		t.Fatalf("index %d encoded with base present = %v: %s", p.Index, hasBase, enc)
	}
	fromText, err := flashblocks.Decode(enc)
	if err != nil {
		t.Fatalf("decode own JSON: %v\n%s", err, enc)
	}
	compressed := flashblocks.Compress(enc)
	if bytes.Equal(compressed, enc) || len(compressed) == 0 || compressed[0] == '{' {
		t.Fatalf("compressed message looks like JSON text")
	}
	fromBrotli, err := flashblocks.Decode(compressed)
	if err != nil {
		t.Fatalf("decode brotli: %v", err)
	}
	if !reflect.DeepEqual(fromText, fromBrotli) {
		t.Fatalf("brotli decodes to %+v, text to %+v", fromBrotli, fromText)
	}
	again, err := flashblocks.Encode(fromText)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(again, enc) {
		t.Fatalf("re-encoding changed the message:\n%s\n%s", enc, again)
	}
}

func TestDecodeRejects(t *testing.T) {
	t.Parallel()
	valid := string(loadReference(t, "unichain-sepolia-35535698-1.json"))
	cases := []struct {
		name string
		msg  string
		want error // nil: any error
	}{
		{"index 0 without base", strings.Replace(valid, `"index":1`, `"index":0`, 1), flashblocks.ErrMissingBase},
		{"base after index 0", strings.Replace(valid, `"base":null`, `"base":{"block_number":"0x1"}`, 1), flashblocks.ErrUnexpectedBase},
		{"no block number", strings.Replace(valid, `"block_number":35535698`, `"height":35535698`, 1), flashblocks.ErrNoBlockNumber},
		{"hex index", strings.Replace(valid, `"index":1`, `"index":"0x1"`, 1), nil},
		{"hex metadata block number", strings.Replace(valid, `"block_number":35535698`, `"block_number":"0x21e3b52"`, 1), nil},
		{"short payload id", strings.Replace(valid, `"0x03c446f063e3735a"`, `"0x03c446f063e373"`, 1), nil},
		{"not brotli", "\x00\x01garbage", nil},
		{"empty", "", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := flashblocks.Decode([]byte(c.msg))
			if err == nil || (c.want != nil && !errors.Is(err, c.want)) {
				t.Fatalf("got %v, want %v", err, c.want)
			}
		})
	}
}
