package api

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common/hexutil"
	gethrpc "github.com/ethereum/go-ethereum/rpc"

	"github.com/flashrpc/flashrpc/internal/chain"
	"github.com/flashrpc/flashrpc/internal/logs"
	"github.com/flashrpc/flashrpc/internal/oprollup"
	"github.com/flashrpc/flashrpc/internal/rpc"
)

// TestDenimRPCFields reads a Denim chain (BaseTime deposits, 200 ms time) through both
// endpoints and a WebSocket client: sealed blocks, headers and newHeads carry timestampMs,
// sealed transactions and logs (in receipts, eth_getLogs and the logs subscription)
// blockTimestampMs, all equal to the block's 1000 × timestamp + BaseTime part; the block in
// progress and its transactions, receipts and logs carry none; and a chain without Denim
// carries none either.
func TestDenimRPCFields(t *testing.T) {
	ctx := context.Background()
	zero := uint64(0)
	n := newSurfaceNodeOf(t, 1, Config{}, nil, true, &zero)
	srv := httptest.NewServer(rpc.NewServer(rpc.Config{}, n.std.Service()))
	t.Cleanup(srv.Close)
	client, err := gethrpc.DialContext(ctx, "ws"+strings.TrimPrefix(srv.URL, "http"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(client.Close)
	heads, logsCh := make(chan json.RawMessage, 16), make(chan json.RawMessage, 16)
	subHeads, err := client.EthSubscribe(ctx, heads, "newHeads")
	if err != nil {
		t.Fatal(err)
	}
	defer subHeads.Unsubscribe()
	subLogs, err := client.EthSubscribe(ctx, logsCh, "logs", map[string]any{"address": echoAddr})
	if err != nil {
		t.Fatal(err)
	}
	defer subLogs.Unsubscribe()

	var filter string
	n.mustCall(t, n.std, &filter, "eth_newFilter", map[string]any{"address": echoAddr})
	first := n.seal(t) // block 1: part 0
	hash := n.send(t, 0, echoAddr, []byte("hello"))
	n.preconfirm(t)

	// The block in progress: nothing carries a millisecond time.
	absent := func(what string, raw json.RawMessage, key string) {
		t.Helper()
		if strings.Contains(string(raw), `"`+key+`"`) {
			t.Fatalf("%s carries %s: %.300s", what, key, raw)
		}
	}
	absent("pending block", n.mustCall(t, n.pre, nil, "eth_getBlockByNumber", "pending", true), "timestampMs")
	absent("pending block's transactions", n.mustCall(t, n.pre, nil, "eth_getBlockByNumber", "pending", true), "blockTimestampMs")
	absent("pending header", n.mustCall(t, n.pre, nil, "eth_getHeaderByNumber", "pending"), "timestampMs")
	absent("pre-confirmed transaction", n.mustCall(t, n.pre, nil, "eth_getTransactionByHash", hash), "blockTimestampMs")
	absent("pre-confirmed receipt", n.mustCall(t, n.pre, nil, "eth_getTransactionReceipt", hash), "blockTimestampMs")
	absent("pending logs", n.mustCall(t, n.pre, nil, "eth_getLogs", map[string]any{"address": echoAddr, "fromBlock": "pending", "toBlock": "pending"}), "blockTimestampMs")

	sealed := n.seal(t) // block 2: the transaction, part 200
	ms1, ms2 := chain.BlockTimeMs(first), chain.BlockTimeMs(sealed)
	if ms1 == nil || ms2 == nil || *ms2 != *ms1+oprollup.DenimBlockTimeMs || *ms2 != sealed.Time()*1000+uint64(*ms2%1000) {
		t.Fatalf("blocks 1 and 2 at %v and %v ms", ms1, ms2)
	}
	want := hexutil.EncodeUint64(*ms2)
	field := func(what string, raw []byte, key string) {
		t.Helper()
		var m map[string]json.RawMessage
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if got := string(m[key]); got != `"`+want+`"` {
			t.Fatalf("%s: %s = %s, want %s", what, key, got, want)
		}
	}
	type block struct {
		Transactions []json.RawMessage
	}
	for _, q := range [][]any{{"eth_getBlockByNumber", "latest", true}, {"eth_getBlockByNumber", "0x2", false}, {"eth_getBlockByHash", sealed.Hash(), true}} {
		var b block
		raw := n.mustCall(t, n.std, &b, q[0].(string), q[1:]...)
		field(q[0].(string), raw, "timestampMs")
		if q[2] == true {
			for _, tx := range b.Transactions {
				field(q[0].(string)+" transaction", tx, "blockTimestampMs")
			}
		}
	}
	var earlier json.RawMessage
	n.mustCall(t, n.std, &earlier, "eth_getBlockByNumber", "0x1", false)
	if !strings.Contains(string(earlier), `"timestampMs":"`+hexutil.EncodeUint64(*ms1)+`"`) {
		t.Fatalf("block 1: %.300s", earlier)
	}
	field("header", n.mustCall(t, n.std, nil, "eth_getHeaderByNumber", "latest"), "timestampMs")
	field("transaction", n.mustCall(t, n.std, nil, "eth_getTransactionByHash", hash), "blockTimestampMs")
	var receipt struct{ Logs []json.RawMessage }
	raw := n.mustCall(t, n.std, &receipt, "eth_getTransactionReceipt", hash)
	absent("receipt's own keys", []byte(strings.Replace(string(raw), string(receipt.Logs[0]), "", 1)), "blockTimestampMs")
	field("receipt log", receipt.Logs[0], "blockTimestampMs")
	var receipts []struct{ Logs []json.RawMessage }
	n.mustCall(t, n.std, &receipts, "eth_getBlockReceipts", "latest")
	field("block receipts log", receipts[2].Logs[0], "blockTimestampMs")
	var found []json.RawMessage
	n.mustCall(t, n.std, &found, "eth_getLogs", map[string]any{"address": echoAddr, "fromBlock": "0x0", "toBlock": "latest"})
	if len(found) != 1 {
		t.Fatalf("eth_getLogs: %d logs", len(found))
	}
	field("eth_getLogs", found[0], "blockTimestampMs")
	n.mustCall(t, n.std, &found, "eth_getLogs", map[string]any{"blockHash": sealed.Hash()})
	field("eth_getLogs by block hash", found[0], "blockTimestampMs")
	ix, err := logs.OpenIndex(logs.IndexConfig{Store: n.chain.LogIndexStore(), Chain: n.chain})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	syncCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := ix.Sync(syncCtx); err != nil {
		t.Fatal(err)
	}
	indexed := New(Config{}, Backend{Chain: n.chain, Preconf: n.preconf, Pool: n.pool, Logs: ix})
	n.mustCall(t, indexed, &found, "eth_getLogs", map[string]any{"address": echoAddr, "fromBlock": "0x0", "toBlock": "latest"})
	if len(found) != 1 {
		t.Fatalf("eth_getLogs with the index: %d logs", len(found))
	}
	field("eth_getLogs with the index", found[0], "blockTimestampMs")
	n.changes(t, n.std, filter, &found) // once the seal's logs have reached the filter
	if len(found) != 1 {
		t.Fatalf("eth_getFilterChanges: %d logs", len(found))
	}
	field("eth_getFilterChanges", found[0], "blockTimestampMs")

	deadline := time.After(10 * time.Second)
	for seen := false; !seen; {
		select {
		case h := <-heads:
			var head struct{ Number hexutil.Uint64 }
			if err := json.Unmarshal(h, &head); err != nil {
				t.Fatal(err)
			}
			if head.Number == 2 {
				field("newHeads", h, "timestampMs")
				seen = true
			}
		case err := <-subHeads.Err():
			t.Fatal(err)
		case <-deadline:
			t.Fatal("no newHeads notification of block 2")
		}
	}
	select {
	case l := <-logsCh:
		field("logs subscription", l, "blockTimestampMs")
	case err := <-subLogs.Err():
		t.Fatal(err)
	case <-deadline:
		t.Fatal("no logs notification")
	}

	plain := newOPSurfaceNode(t, 1, Config{})
	plain.seal(t)
	absent("a block without Denim", plain.mustCall(t, plain.std, nil, "eth_getBlockByNumber", "latest", true), "timestampMs")
}
