package api

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"

	"github.com/flashrpc/flashrpc/internal/rpc"
)

// The tracers' outputs are compared with op-geth's own node in cmd/flashrpc
// (TestGethDiff/tracing, TestGethDiff/traceCall); these tests cover what op-geth cannot:
// pre-confirmed transactions and the block in progress, the endpoints' difference, and the
// refusals.

// traceOptions are the tracer options the pre-confirmed traces are checked with.
var traceOptions = []map[string]any{
	nil,
	{"tracer": "callTracer", "tracerConfig": map[string]any{"withLog": true}},
	{"tracer": "prestateTracer", "tracerConfig": map[string]any{"diffMode": true}},
	{"tracer": "flatCallTracer"},
}

// TestTracePreconfirmed traces transactions while pre-confirmed (pre-confirmed endpoint
// only), the block in progress, and a call on top of it; once sealed, the standard endpoint's
// traces of the same transactions must be the same.
func TestTracePreconfirmed(t *testing.T) {
	n := newSurfaceNode(t, 2, Config{})
	store := n.send(t, 0, storeAddr, common.LeftPadBytes([]byte{7}, 32))
	echo := n.send(t, 1, echoAddr, []byte("hello"))
	n.preconfirm(t)

	pre := map[string][]json.RawMessage{}
	for _, h := range []common.Hash{store, echo} {
		for _, opts := range traceOptions {
			raw := n.mustCall(t, n.pre, nil, "debug_traceTransaction", h, opts)
			pre[h.Hex()] = append(pre[h.Hex()], raw)
		}
		n.wantError(t, n.std, rpc.CodeServer, []string{"transaction not found"}, "debug_traceTransaction", h)
	}
	var callTrace struct {
		To   common.Address
		Logs []struct{ Data hexutil.Bytes }
	}
	if err := json.Unmarshal(pre[echo.Hex()][1], &callTrace); err != nil || callTrace.To != echoAddr || len(callTrace.Logs) != 1 || string(callTrace.Logs[0].Data) != "hello" {
		t.Fatalf("pre-confirmed callTracer trace: %s (%v)", pre[echo.Hex()][1], err)
	}

	// The block in progress, traced whole.
	var block []struct {
		TxHash common.Hash
		Result json.RawMessage
	}
	n.mustCall(t, n.pre, &block, "debug_traceBlockByNumber", "pending", traceOptions[1])
	if len(block) != 2 || block[0].TxHash != store || block[1].TxHash != echo || !jsonEqual(block[1].Result, pre[echo.Hex()][1]) {
		t.Fatalf("pending block trace: %+v", block)
	}
	// The standard endpoint's pending is its head, the genesis block.
	n.wantError(t, n.std, rpc.CodeServer, []string{"genesis is not traceable"}, "debug_traceBlockByNumber", "pending", nil)

	// A call at pending sees the pre-confirmed store; at latest, and on the standard
	// endpoint, it does not.
	slot := func(api *API, tag string) string {
		var res map[common.Address]struct{ Storage map[common.Hash]common.Hash }
		n.mustCall(t, api, &res, "debug_traceCall", map[string]any{"to": storeAddr, "input": hexutil.Bytes(common.LeftPadBytes([]byte{9}, 32))}, tag, map[string]any{"tracer": "prestateTracer"})
		return res[storeAddr].Storage[common.Hash{}].Hex()
	}
	seven := common.BytesToHash([]byte{7}).Hex()
	if got := slot(n.pre, "pending"); got != seven {
		t.Fatalf("traceCall at pending (pre-confirmed endpoint): slot 0 = %s, want %s", got, seven)
	}
	for api, tag := range map[*API]string{n.pre: "latest", n.std: "pending"} {
		if got := slot(api, tag); got != (common.Hash{}).Hex() {
			t.Fatalf("traceCall at %s: slot 0 = %s, want the sealed zero", tag, got)
		}
	}

	sealed := n.seal(t)
	for _, h := range []common.Hash{store, echo} {
		for i, opts := range traceOptions {
			for name, api := range map[string]*API{"standard": n.std, "pre-confirmed": n.pre} {
				raw := n.mustCall(t, api, nil, "debug_traceTransaction", h, opts)
				if i == 3 { // flatCallTracer names the block: null while pre-confirmed
					raw = flatWithBlockHash(t, raw, sealed.Hash(), nil)
				}
				if !jsonEqual(raw, pre[h.Hex()][i]) {
					t.Fatalf("%s: sealed trace of %s with %v differs from the pre-confirmed one:\nsealed %s\npre    %s", name, h, opts, raw, pre[h.Hex()][i])
				}
			}
		}
	}
	var sealedBlock []struct{ TxHash common.Hash }
	n.mustCall(t, n.std, &sealedBlock, "debug_traceBlockByHash", sealed.Hash(), traceOptions[1])
	if len(sealedBlock) != 2 {
		t.Fatalf("sealed block trace: %+v", sealedBlock)
	}
	// txIndex: the state before the echo call, in the sealed block, holds the store.
	var at1 map[common.Address]struct{ Storage map[common.Hash]common.Hash }
	n.mustCall(t, n.std, &at1, "debug_traceCall", map[string]any{"to": storeAddr, "input": hexutil.Bytes(common.LeftPadBytes([]byte{9}, 32))}, "latest",
		map[string]any{"tracer": "prestateTracer", "txIndex": "0x1"})
	if got := at1[storeAddr].Storage[common.Hash{}].Hex(); got != seven {
		t.Fatalf("traceCall with txIndex 1: slot 0 = %s, want %s", got, seven)
	}
}

// TestTraceRefusals checks the errors: options the tracers cannot take are -32602 naming
// what is wrong, unknown transactions and blocks go-ethereum's -32000 texts.
func TestTraceRefusals(t *testing.T) {
	n := newSurfaceNode(t, 1, Config{})
	h := n.send(t, 0, echoAddr, []byte{1})
	n.preconfirm(t)
	n.seal(t)
	cases := []struct {
		name   string
		code   int
		words  []string
		method string
		args   []any
	}{
		{"unknown tracer", rpc.CodeInvalidParams, []string{"invalid argument 1", "unknown tracer", `"jsTracer"`, "callTracer"}, "debug_traceTransaction", []any{h, map[string]any{"tracer": "jsTracer"}}},
		{"javascript", rpc.CodeInvalidParams, []string{"unknown tracer", "JavaScript"}, "debug_traceTransaction", []any{h, map[string]any{"tracer": "{result: function() { return 1 }}"}}},
		{"unknown mux member", rpc.CodeInvalidParams, []string{"unknown tracer", `"nope"`}, "debug_traceTransaction", []any{h, map[string]any{"tracer": "muxTracer", "tracerConfig": map[string]any{"callTracer": nil, "nope": nil}}}},
		{"mux not an object", rpc.CodeInvalidParams, []string{"tracerConfig", "muxTracer"}, "debug_traceTransaction", []any{h, map[string]any{"tracer": "muxTracer", "tracerConfig": []int{1}}}},
		{"malformed tracerConfig", rpc.CodeInvalidParams, []string{"invalid argument 1", "tracerConfig", "callTracer"}, "debug_traceTransaction", []any{h, map[string]any{"tracer": "callTracer", "tracerConfig": map[string]any{"withLog": "yes"}}}},
		{"malformed prestate config", rpc.CodeInvalidParams, []string{"tracerConfig", "prestateTracer"}, "debug_traceBlockByNumber", []any{"latest", map[string]any{"tracer": "prestateTracer", "tracerConfig": map[string]any{"diffMode": 1}}}},
		{"bad timeout", rpc.CodeInvalidParams, []string{"timeout", "abc"}, "debug_traceTransaction", []any{h, map[string]any{"timeout": "abc"}}},
		{"negative timeout", rpc.CodeInvalidParams, []string{"timeout"}, "debug_traceTransaction", []any{h, map[string]any{"timeout": "-1s"}}},
		{"options of the wrong type", rpc.CodeInvalidParams, []string{"invalid argument 1", "tracer"}, "debug_traceTransaction", []any{h, map[string]any{"tracer": 5}}},
		{"bad tracer on traceCall", rpc.CodeInvalidParams, []string{"invalid argument 2", "unknown tracer"}, "debug_traceCall", []any{map[string]any{"to": echoAddr}, "latest", map[string]any{"tracer": "nope"}}},
		{"missing transaction", rpc.CodeServer, []string{"transaction not found"}, "debug_traceTransaction", []any{common.Hash{1}}},
		{"unknown block number", rpc.CodeServer, []string{"block #100 not found"}, "debug_traceBlockByNumber", []any{"0x64"}},
		{"unknown block hash", rpc.CodeServer, []string{"not found"}, "debug_traceBlockByHash", []any{common.Hash{2}}},
		{"genesis", rpc.CodeServer, []string{"genesis is not traceable"}, "debug_traceBlockByNumber", []any{"0x0"}},
		{"txIndex out of range", rpc.CodeServer, []string{"out of range"}, "debug_traceCall", []any{map[string]any{"to": echoAddr}, "latest", map[string]any{"txIndex": "0x5"}}},
		{"unknown block for traceCall", rpc.CodeServer, []string{"header not found"}, "debug_traceCall", []any{map[string]any{"to": echoAddr}, "0x64"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			n.wantError(t, n.std, tc.code, tc.words, tc.method, tc.args...)
		})
	}
}

// TestTraceLimits checks that a trace stops at the EVM time limit, whatever timeout the
// request asks for, and that the struct logs stop at the node's bound.
func TestTraceLimits(t *testing.T) {
	n := newSurfaceNode(t, 1, Config{EVMTimeout: 200 * time.Millisecond, TraceMaxLogBytes: 2000})
	for _, opts := range []map[string]any{nil, {"timeout": "1h"}, {"tracer": "callTracer", "timeout": "1h"}} {
		n.wantError(t, n.std, rpc.CodeServer, []string{"execution timeout"}, "debug_traceCall", map[string]any{"to": spinAddr}, "latest", opts)
	}
	var res struct {
		Gas        uint64
		StructLogs []json.RawMessage
	}
	n.mustCall(t, n.std, &res, "debug_traceCall", map[string]any{"to": spinAddr, "gas": "0x186a0"}, "latest", nil)
	size := 0
	for _, l := range res.StructLogs {
		size += len(l)
	}
	if res.Gas != 100_000 || len(res.StructLogs) == 0 || size > 2000+200 {
		t.Fatalf("struct logs of a 100,000-gas spin: gas %d, %d logs of %d bytes, want at most about 2,000 bytes", res.Gas, len(res.StructLogs), size)
	}
}

// flatWithBlockHash checks that every action of a flatCallTracer trace names want as its
// block hash and replaces it by to (nil: null).
func flatWithBlockHash(t *testing.T, raw json.RawMessage, want common.Hash, to *common.Hash) json.RawMessage {
	t.Helper()
	var actions []map[string]any
	if err := json.Unmarshal(raw, &actions); err != nil {
		t.Fatal(err)
	}
	for _, a := range actions {
		if a["blockHash"] != want.Hex() {
			t.Fatalf("flatCallTracer blockHash %v, want %s", a["blockHash"], want)
		}
		a["blockHash"] = to
	}
	out, _ := json.Marshal(actions)
	return out
}

// jsonEqual reports whether two JSON documents are equal as values.
func jsonEqual(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

// BenchmarkTraceTransaction traces a sealed call with callTracer (withLog), the first and
// the last of a block of 10 (the replay of the block's earlier transactions is part of it).
func BenchmarkTraceTransaction(b *testing.B) {
	n := newSurfaceNode(b, 10, Config{})
	var hashes []common.Hash
	for i := range 10 {
		hashes = append(hashes, n.send(b, i, storeAddr, common.LeftPadBytes([]byte{byte(i + 1)}, 32)))
	}
	n.preconfirm(b)
	n.seal(b)
	opts := map[string]any{"tracer": "callTracer", "tracerConfig": map[string]any{"withLog": true}}
	for _, pos := range []int{0, 9} {
		b.Run(fmt.Sprintf("index=%d", pos), func(b *testing.B) {
			b.ReportAllocs()
			m := n.std.Service().Methods["debug_traceTransaction"]
			params := encodeParams(b, hashes[pos], opts)
			for b.Loop() {
				res, err := m(context.Background(), params)
				if err != nil || len(res.(json.RawMessage)) == 0 {
					b.Fatalf("trace: %v", err)
				}
			}
		})
	}
}
