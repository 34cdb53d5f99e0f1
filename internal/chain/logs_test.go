package chain

import (
	"bytes"
	"log/slog"
	"math/big"
	"reflect"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/rawdb"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/rlp"
)

// storedReceiptShapes returns receipts with every shape of log (no topics to four, no data to
// 300 bytes), receipts with a status or a post-state (before Byzantium) and OP Stack deposits'
// receipts (their nonce after the logs since Regolith, then their version since Canyon), then
// more receipts of two logs each, encoded as go-ethereum stores them and decoded back by
// go-ethereum.
func storedReceiptShapes(t *testing.T, more int) (enc []byte, decoded []*types.ReceiptForStorage) {
	t.Helper()
	topics := func(n int) []common.Hash {
		out := make([]common.Hash, n)
		for i := range out {
			out[i] = common.Hash{byte(i + 1)}
		}
		return out
	}
	depositNonce, depositVersion := uint64(9), types.CanyonDepositReceiptVersion
	receipts := []*types.ReceiptForStorage{
		{Status: 0, CumulativeGasUsed: 1},
		{Status: 1, CumulativeGasUsed: 2, Logs: []*types.Log{
			{Address: common.Address{1}, Topics: topics(0), Data: nil},
			{Address: common.Address{2}, Topics: topics(4), Data: bytes.Repeat([]byte{7}, 300)},
		}},
		{Status: 0, CumulativeGasUsed: 3},
		{Status: 1, CumulativeGasUsed: 4, Logs: []*types.Log{{Address: common.Address{3}, Topics: topics(1), Data: []byte{1}}}},
		{PostState: bytes.Repeat([]byte{0xab}, 32), CumulativeGasUsed: 5, Logs: []*types.Log{{Address: common.Address{4}, Topics: topics(2)}}},
		{Status: 1, CumulativeGasUsed: 6, DepositNonce: &depositNonce, Logs: []*types.Log{{Address: common.Address{5}, Topics: topics(1), Data: []byte{2}}}},
		{Status: 1, CumulativeGasUsed: 7, DepositNonce: &depositNonce, DepositReceiptVersion: &depositVersion,
			Logs: []*types.Log{{Address: common.Address{6}, Topics: topics(3), Data: []byte{3, 4}}}},
	}
	for i := range more {
		receipts = append(receipts, &types.ReceiptForStorage{Status: 1, CumulativeGasUsed: uint64(8 + i), Logs: []*types.Log{
			{Address: common.Address{byte(i)}, Topics: topics(i % 5), Data: []byte{byte(i)}},
			{Address: common.Address{byte(i), 1}, Topics: topics(3), Data: make([]byte, 32)},
		}})
	}
	enc, err := rlp.EncodeToBytes(receipts)
	if err != nil {
		t.Fatal(err)
	}
	if err := rlp.DecodeBytes(enc, &decoded); err != nil {
		t.Fatal(err)
	}
	return enc, decoded
}

// TestMatchStoredLogsDecodesAsGoEthereum walks stored receipts of every shape
// (storedReceiptShapes) and compares with go-ethereum's own decoding, nil-versus-empty included
// (JSON tells them apart), and the logs' positions.
func TestMatchStoredLogsDecodesAsGoEthereum(t *testing.T) {
	t.Parallel()
	enc, decoded := storedReceiptShapes(t, 0)
	var (
		want []*types.Log
		txOf []uint
	)
	for i, r := range decoded {
		want = append(want, r.Logs...)
		for range r.Logs {
			txOf = append(txOf, uint(i))
		}
	}
	hash := common.Hash{0xbb}
	got, err := matchStoredLogs(enc, hash, 9, func(*types.Log) bool { return true })
	if err != nil || len(got) != len(want) {
		t.Fatalf("got %d logs (%v), want %d", len(got), err, len(want))
	}
	for i, l := range got {
		w := want[i]
		if l.Address != w.Address || !reflect.DeepEqual(l.Topics, w.Topics) || !reflect.DeepEqual(l.Data, w.Data) {
			t.Errorf("log %d: got %v %#v %x, want %v %#v %x", i, l.Address, l.Topics, l.Data, w.Address, w.Topics, w.Data)
		}
		if l.BlockHash != hash || l.BlockNumber != 9 || l.Index != uint(i) || l.TxIndex != txOf[i] {
			t.Errorf("log %d: position %+v", i, l)
		}
	}
	if _, err := matchStoredLogs(enc[:len(enc)-3], hash, 9, func(*types.Log) bool { return true }); err == nil {
		t.Error("truncated receipts decoded")
	}
}

// TestStoredLogsDecodesAsGoEthereum: RawLogs' walk of stored receipts gives, receipt by
// receipt, the logs go-ethereum's decoding gives (rawdb.ReadLogs decodes them so), for
// receipts of every shape (storedReceiptShapes), and refuses truncated receipts.
func TestStoredLogsDecodesAsGoEthereum(t *testing.T) {
	t.Parallel()
	enc, want := storedReceiptShapes(t, 300) // past the first chunks of logs and topics
	got, err := storedLogs(enc)
	if err != nil || len(got) != len(want) {
		t.Fatalf("got %d receipts' logs (%v), want %d", len(got), err, len(want))
	}
	for i, logs := range got {
		if len(logs) != len(want[i].Logs) {
			t.Fatalf("receipt %d: %d logs, want %d", i, len(logs), len(want[i].Logs))
		}
		for j, l := range logs {
			w := want[i].Logs[j]
			if l.Address != w.Address || !reflect.DeepEqual(l.Topics, w.Topics) || !reflect.DeepEqual(l.Data, w.Data) {
				t.Errorf("receipt %d log %d: got %v %#v %x, want %v %#v %x", i, j, l.Address, l.Topics, l.Data, w.Address, w.Topics, w.Data)
			}
		}
	}
	if _, err := storedLogs(enc[:len(enc)-3]); err == nil {
		t.Error("truncated receipts decoded")
	}
}

// BenchmarkStoredLogs: the log index's read of a block of 10,000 one-log receipts, walked
// (storedLogs, RawLogs now) against decoded as go-ethereum's rawdb.ReadLogs decodes them
// (each receipt's bloom computed).
func BenchmarkStoredLogs(b *testing.B) {
	given, _ := blockOfReceipts(b, 10_000)
	stored := make([]*types.ReceiptForStorage, len(given))
	for i, r := range given {
		stored[i] = (*types.ReceiptForStorage)(r)
	}
	enc, err := rlp.EncodeToBytes(stored)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("impl=walk", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if logs, err := storedLogs(enc); err != nil || len(logs) != len(given) {
				b.Fatalf("%d receipts' logs: %v", len(logs), err)
			}
		}
	})
	b.Run("impl=decode", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var decoded []*types.ReceiptForStorage
			if err := rlp.DecodeBytes(enc, &decoded); err != nil || len(decoded) != len(given) {
				b.Fatalf("%d receipts: %v", len(decoded), err)
			}
		}
	})
}

// TestFillTxHashes takes transaction hashes from a body's encoding for legacy and typed
// transactions and compares with go-ethereum's, in both of its users: FilterBlockLogs
// (fillTxHashes) and the log index build (TxHashes).
func TestFillTxHashes(t *testing.T) {
	t.Parallel()
	key, _ := crypto.GenerateKey()
	signer := types.LatestSignerForChainID(big.NewInt(1))
	to := common.Address{9}
	txs := []*types.Transaction{
		types.MustSignNewTx(key, types.HomesteadSigner{}, &types.LegacyTx{Nonce: 0, Gas: 21000, GasPrice: big.NewInt(1), To: &to}),
		types.MustSignNewTx(key, signer, &types.DynamicFeeTx{ChainID: big.NewInt(1), Nonce: 1, Gas: 21000, GasFeeCap: big.NewInt(1), GasTipCap: big.NewInt(1), To: &to, Data: []byte{1, 2}}),
		types.MustSignNewTx(key, signer, &types.AccessListTx{ChainID: big.NewInt(1), Nonce: 2, Gas: 21000, GasPrice: big.NewInt(1), To: &to}),
	}
	body, err := rlp.EncodeToBytes(&types.Body{Transactions: txs, Withdrawals: []*types.Withdrawal{}})
	if err != nil {
		t.Fatal(err)
	}
	logs := []*types.Log{{TxIndex: 0}, {TxIndex: 0}, {TxIndex: 1}, {TxIndex: 2}}
	if err := fillTxHashes(logs, body); err != nil {
		t.Fatal(err)
	}
	for i, l := range logs {
		if want := txs[l.TxIndex].Hash(); l.TxHash != want {
			t.Errorf("log %d (tx %d): hash %s, want %s", i, l.TxIndex, l.TxHash, want)
		}
	}
	if err := fillTxHashes([]*types.Log{{TxIndex: 3}}, body); err == nil {
		t.Error("a log of a transaction the body does not hold got a hash")
	}

	// TxHashes reads the same body from the database, every hash in order.
	c := &Chain{db: rawdb.NewMemoryDatabase(), log: slog.New(slog.DiscardHandler)}
	hash := common.Hash{0xbb}
	rawdb.WriteBodyRLP(c.db, hash, 5, body)
	got := c.TxHashes(hash, 5)
	if len(got) != len(txs) {
		t.Fatalf("TxHashes returned %d hashes, want %d", len(got), len(txs))
	}
	for i, tx := range txs {
		if got[i] != tx.Hash() {
			t.Errorf("TxHashes[%d] = %s, want %s", i, got[i], tx.Hash())
		}
	}
	if got := c.TxHashes(common.Hash{0xcc}, 5); got != nil {
		t.Errorf("TxHashes of an unknown body = %v, want nil", got)
	}
	empty, err := rlp.EncodeToBytes(&types.Body{})
	if err != nil {
		t.Fatal(err)
	}
	rawdb.WriteBodyRLP(c.db, hash, 6, empty)
	if got := c.TxHashes(hash, 6); got == nil || len(got) != 0 {
		t.Errorf("TxHashes of a body without transactions = %#v, want empty", got)
	}
}
