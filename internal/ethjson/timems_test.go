package ethjson

import (
	"encoding/json"
	"testing"

	"github.com/ethereum/go-ethereum/core/types"
)

// TestTimeMsJSON checks Denim's millisecond fields: timestampMs on headers and blocks (Base's
// rpc-types example: timestamp 42, 42,200 ms), blockTimestampMs on a sealed block's
// transactions and logs, those inside receipts included, and none of them when no time is
// given or on the block in progress. Apart from the new keys the JSON is unchanged.
func TestTimeMsJSON(t *testing.T) {
	t.Parallel()
	var op jsonFork
	for _, f := range jsonForks(t) {
		if f.name == "op-jovian" {
			op = f
		}
	}
	if op.block == nil || len(op.receipts) == 0 {
		t.Fatal("no OP Stack fixture")
	}
	ms := uint64(42_200)
	decode := func(what string, data []byte) map[string]json.RawMessage {
		t.Helper()
		var m map[string]json.RawMessage
		if err := json.Unmarshal(data, &m); err != nil {
			t.Fatalf("%s: %v: %s", what, err, data)
		}
		return m
	}
	same := func(what string, with, without []byte, key string) map[string]json.RawMessage {
		t.Helper()
		m, plain := decode(what, with), decode(what+" without", without)
		if _, ok := plain[key]; ok {
			t.Fatalf("%s: %s without a time", what, key)
		}
		if len(m) != len(plain)+1 {
			t.Fatalf("%s: %d keys with the time, %d without", what, len(m), len(plain))
		}
		return m
	}

	h := types.CopyHeader(op.block.Header())
	h.Time = 42
	got := AppendHeaderMs(nil, h, &ms)
	if m := same("header", got, AppendHeader(nil, h), "timestampMs"); string(m["timestampMs"]) != `"0xa4d8"` || string(m["timestamp"]) != `"0x2a"` {
		t.Fatalf("header: timestamp %s timestampMs %s", m["timestamp"], m["timestampMs"])
	}
	jsonCheckSortedKeys(t, "header", got)

	block := AppendBlock(nil, op.block, true, op.config, BlockOptions{Receipts: op.receipts, TimeMs: &ms})
	m := same("block", block, AppendBlock(nil, op.block, true, op.config, BlockOptions{Receipts: op.receipts}), "timestampMs")
	jsonCheckSortedKeys(t, "block", block)
	var txs []map[string]json.RawMessage
	if err := json.Unmarshal(m["transactions"], &txs); err != nil || len(txs) == 0 {
		t.Fatalf("transactions: %v", err)
	}
	for i, tx := range txs {
		if string(tx["blockTimestampMs"]) != `"0xa4d8"` {
			t.Fatalf("transaction %d: blockTimestampMs %s", i, tx["blockTimestampMs"])
		}
	}
	hash := op.block.Hash()
	pending := AppendBlock(nil, op.block, true, op.config, BlockOptions{Hash: &hash, InProgress: true, Receipts: op.receipts, TimeMs: &ms})
	var ptxs []map[string]json.RawMessage
	if err := json.Unmarshal(decode("pending block", pending)["transactions"], &ptxs); err != nil || len(ptxs) != len(txs) {
		t.Fatalf("pending transactions: %v", err)
	}
	for i, tx := range ptxs {
		if _, ok := tx["blockTimestampMs"]; ok {
			t.Fatalf("pending transaction %d has blockTimestampMs", i)
		}
	}

	withLogs := -1
	for i, r := range op.receipts {
		if len(r.Logs) > 0 {
			withLogs = i
			break
		}
	}
	if withLogs < 0 {
		t.Fatal("no receipt with logs in the fixture")
	}
	r := op.receipts[withLogs]
	l := AppendLogMs(nil, r.Logs[0], &ms)
	if lm := same("log", l, AppendLog(nil, r.Logs[0]), "blockTimestampMs"); string(lm["blockTimestampMs"]) != `"0xa4d8"` {
		t.Fatalf("log: blockTimestampMs %s", lm["blockTimestampMs"])
	}
	signer := types.LatestSigner(op.config)
	tx := op.block.Transactions()[withLogs]
	rj := AppendReceiptMs(nil, r, tx, hash, op.block.NumberU64(), signer, withLogs, op.config, &ms)
	rm, plain := decode("receipt", rj), decode("receipt without", AppendReceipt(nil, r, tx, hash, op.block.NumberU64(), signer, withLogs, op.config))
	if _, ok := rm["blockTimestampMs"]; ok || len(rm) != len(plain) {
		t.Fatalf("receipt: %d keys with the time, %d without; it must have no top-level blockTimestampMs", len(rm), len(plain))
	}
	var logs []map[string]json.RawMessage
	if err := json.Unmarshal(rm["logs"], &logs); err != nil || len(logs) != len(r.Logs) {
		t.Fatalf("receipt logs: %v", err)
	}
	for i, lg := range logs {
		if string(lg["blockTimestampMs"]) != `"0xa4d8"` {
			t.Fatalf("receipt log %d: blockTimestampMs %s", i, lg["blockTimestampMs"])
		}
	}
}
