package main

import (
	"bytes"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/trie"

	"github.com/flashrpc/flashrpc/internal/benchmix"
	"github.com/flashrpc/flashrpc/internal/flashblocks"
)

// mixBlock returns a block as the dev node builds it under the realistic mix: an OP deposit
// first, then n transactions of the mix (transfers, token transfers, swaps).
func mixBlock(t testing.TB, n int) (*types.Block, types.Receipts) {
	t.Helper()
	chainID := big.NewInt(901)
	key, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	mix := benchmix.New(chainID, crypto.PubkeyToAddress(key.PublicKey), 0, big.NewInt(100*params.GWei), big.NewInt(1000))
	txs := []*types.Transaction{types.NewTx(&types.DepositTx{
		From: common.Address{0xde}, To: &common.Address{0x15}, Gas: 1_000_000, IsSystemTransaction: false, Data: []byte{0x44, 0x0a},
	})}
	for i := range n {
		tx, err := mix.Tx(key, uint64(i), uint64(i))
		if err != nil {
			t.Fatal(err)
		}
		txs = append(txs, tx)
	}
	var receipts types.Receipts
	for i, tx := range txs {
		receipts = append(receipts, &types.Receipt{Type: tx.Type(), Status: types.ReceiptStatusSuccessful, CumulativeGasUsed: uint64(i+1) * 50_000})
	}
	beacon, wroot, zero := common.Hash{0xbe}, types.EmptyWithdrawalsHash, uint64(0)
	h := &types.Header{
		ParentHash: common.Hash{0x11}, Number: big.NewInt(4242), Time: 1_800_000_000, GasLimit: 1_000_000_000,
		GasUsed: uint64(len(txs)) * 50_000, BaseFee: big.NewInt(875), Difficulty: new(big.Int), Extra: []byte{0, 0, 0, 0, 250, 0, 0, 0, 6},
		WithdrawalsHash: &wroot, BlobGasUsed: &zero, ExcessBlobGas: &zero, ParentBeaconRoot: &beacon,
	}
	return types.NewBlock(h, &types.Body{Transactions: txs, Withdrawals: types.Withdrawals{}}, receipts, trie.NewStackTrie(nil), params.MergedTestChainConfig), receipts
}

// feedMessages returns feed messages as the node writes them, in both its formats, and the
// op-mainnet subblocks of flashblocks' testdata.
func feedMessages(t *testing.T) map[string][]byte {
	t.Helper()
	block, receipts := mixBlock(t, 60)
	msgs := map[string][]byte{}
	for _, c := range []struct{ index, firstNew int }{{0, 0}, {1, 0}, {3, 1}, {4, 61}} {
		p, err := flashblocks.FromBlock(block, c.index, c.firstNew)
		if err != nil {
			t.Fatal(err)
		}
		if msgs[fmt.Sprintf("base index %d from %d", c.index, c.firstNew)], err = flashblocks.Encode(p); err != nil {
			t.Fatal(err)
		}
		sub, err := flashblocks.Subblock(block, receipts, map[common.Address]*big.Int{{0xaa}: big.NewInt(1e18)}, c.index, c.firstNew)
		if err != nil {
			t.Fatal(err)
		}
		if msgs[fmt.Sprintf("subblock index %d from %d", c.index, c.firstNew)], err = flashblocks.Encode(sub); err != nil {
			t.Fatal(err)
		}
	}
	files, err := filepath.Glob("../../../internal/flashblocks/testdata/op-mainnet-subblock-*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("testdata: %v (%d files)", err, len(files))
	}
	for _, f := range files {
		if msgs[filepath.Base(f)], err = os.ReadFile(f); err != nil {
			t.Fatal(err)
		}
	}
	return msgs
}

// TestSummaryAsFullDecode checks summarizeFlashblock against flashblocks.Decode on the node's
// messages, brotli-compressed ones and broken ones: the same summary, or both refuse.
func TestSummaryAsFullDecode(t *testing.T) {
	msgs := feedMessages(t)
	good := msgs["base index 1 from 0"]
	good0 := msgs["base index 0 from 0"]
	for name, edit := range map[string][2]string{
		"escapes in a skipped member": {`"metadata":{"block_number":4242}`, `"metadata":{"note":"a\"}]\\","block_number":4242,"n":[{"x":"]}"}]}`},
		"brackets in the base":        {`"extra_data":"0x`, `"other":["{","\"[",{"y":"}"}],"extra_data":"0x`},
		"blanks everywhere":           {`"index":0,`, " \"index\" : 0 ,\n\t"},
	} {
		if !bytes.Contains(good0, []byte(edit[0])) {
			t.Fatalf("%s: %q is not in the message", name, edit[0])
		}
		msgs[name] = bytes.Replace(good0, []byte(edit[0]), []byte(edit[1]), 1)
	}
	// The node's messages are read by the scan itself, not by its fall-back to the full decode.
	for name, msg := range msgs {
		got, err := scanFlashblock(msg)
		want, wantErr := summarizeDecoded(msg)
		if err != nil || wantErr != nil || got != want {
			t.Errorf("%s: scan %+v (%v), full decode %+v (%v)", name, got, err, want, wantErr)
		}
	}
	for name, msg := range msgs {
		msgs[name+" brotli"] = flashblocks.Compress(msg)
	}
	broken := map[string][2]string{
		"index 0 without base":       {`"index":1,`, `"index":0,`},
		"base null at index 0":       {`"index":1,`, `"index":0,"base":null,`},
		"base at index 1":            {`"index":1,`, `"index":1,"base":{},`},
		"no block number":            {`"block_number":4242`, `"other":4242`},
		"block number null":          {`"block_number":4242`, `"block_number":null`},
		"block number as a string":   {`"block_number":4242`, `"block_number":"0x1092"`},
		"metadata null":              {`"metadata":{"block_number":4242}`, `"metadata":null`},
		"metadata absent":            {`,"metadata":{"block_number":4242}`, ``},
		"index as a string":          {`"index":1,`, `"index":"1",`},
		"gas used as a number":       {`"gas_used":"0x`, `"gas_used":0,"x":"0x`},
		"transactions null":          {`"transactions":[`, `"transactions":null,"x":[`},
		"an empty transaction":       {`"transactions":[`, `"transactions":["0x",`},
		"a transaction without 0x":   {`"transactions":["0x`, `"transactions":["`},
		"a transaction of one digit": {`"transactions":[`, `"transactions":["0x7",`},
		"a transaction not hex":      {`"transactions":[`, `"transactions":["0xzz",`},
		"truncated":                  {`}}`, `}`},
		"leading blanks":             {`{"payload_id"`, " \n{\"payload_id\""},
	}
	for name, edit := range broken {
		if !bytes.Contains(good, []byte(edit[0])) {
			t.Fatalf("%s: %q is not in the message", name, edit[0])
		}
		msgs[name] = bytes.Replace(good, []byte(edit[0]), []byte(edit[1]), 1)
	}
	msgs["empty"] = nil
	msgs["not JSON"] = []byte("{not json")
	decoded := 0
	for name, msg := range msgs {
		// What the full decode refuses, the scan must refuse too (and leave to it).
		if _, scanErr := scanFlashblock(msg); scanErr == nil {
			if _, err := summarizeDecoded(msg); err != nil {
				t.Errorf("%s: the scan reads what the full decode refuses (%v)", name, err)
			}
		}
		got, gotErr := summarizeFlashblock(msg)
		want, wantErr := summarizeDecoded(msg)
		switch {
		case (gotErr != nil) != (wantErr != nil):
			t.Errorf("%s: summary error %v, full decode error %v", name, gotErr, wantErr)
		case gotErr == nil && got != want:
			t.Errorf("%s: summary %+v, full decode %+v", name, got, want)
		case gotErr == nil:
			decoded++
		}
	}
	if decoded < len(msgs)/2 {
		t.Fatalf("only %d of %d messages decoded: the comparison compares little", decoded, len(msgs))
	}
	block, _ := mixBlock(t, 60)
	s, err := summarizeFlashblock(good)
	if err != nil {
		t.Fatal(err)
	}
	if want := (flashblockSummary{block: 4242, index: 1, txs: 60, gas: block.GasUsed()}); s != want {
		t.Fatalf("summary %+v, want %+v (the deposit not counted)", s, want)
	}
}

// TestBatchBody checks the batch request against the one built per transaction with
// encoding/json's formatting of the same call.
func TestBatchBody(t *testing.T) {
	block, _ := mixBlock(t, 12)
	var hexes [][]byte
	var want bytes.Buffer
	want.WriteByte('[')
	for i, tx := range block.Transactions() {
		h, err := hexTx(tx)
		if err != nil {
			t.Fatal(err)
		}
		hexes = append(hexes, h)
		raw, err := tx.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		if i > 0 {
			want.WriteByte(',')
		}
		fmt.Fprintf(&want, `{"jsonrpc":"2.0","id":%d,"method":"eth_sendRawTransaction","params":["%s"]}`, i, hexutil.Encode(raw))
	}
	want.WriteByte(']')
	if got := batchBody(hexes); !bytes.Equal(got, want.Bytes()) {
		t.Fatalf("batch body\n%s\nwant\n%s", got, want.Bytes())
	}
	if got := batchBody(nil); string(got) != "[]" {
		t.Fatalf("empty batch %q", got)
	}
}

// BenchmarkFeedMessage reads a flashblock of 1,000 transactions of the mix (one pre-confirmation
// at 5,000 a second) for its summary, and decodes it whole as the load generator did before.
func BenchmarkFeedMessage(b *testing.B) {
	block, _ := mixBlock(b, 1000)
	p, err := flashblocks.FromBlock(block, 1, 0)
	if err != nil {
		b.Fatal(err)
	}
	msg, err := flashblocks.Encode(p)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("summary", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(msg)))
		for b.Loop() {
			if _, err := summarizeFlashblock(msg); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("full decode", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(msg)))
		for b.Loop() {
			if _, err := summarizeDecoded(msg); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkBatchBody builds a batch request of 50 transactions of the mix (one batch at 5,000 a
// second), from hex encoded at signing, and as the load generator did before, per batch.
func BenchmarkBatchBody(b *testing.B) {
	block, _ := mixBlock(b, 50)
	var hexes, raws [][]byte
	for _, tx := range block.Transactions() {
		h, err := hexTx(tx)
		if err != nil {
			b.Fatal(err)
		}
		raw, err := tx.MarshalBinary()
		if err != nil {
			b.Fatal(err)
		}
		hexes, raws = append(hexes, h), append(raws, raw)
	}
	b.Run("pre-encoded", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			batchBody(hexes)
		}
	})
	b.Run("per batch", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var buf bytes.Buffer
			buf.WriteByte('[')
			for i, raw := range raws {
				if i > 0 {
					buf.WriteByte(',')
				}
				fmt.Fprintf(&buf, `{"jsonrpc":"2.0","id":%d,"method":"eth_sendRawTransaction","params":["%s"]}`, i, hexutil.Encode(raw))
			}
			buf.WriteByte(']')
		}
	})
}
