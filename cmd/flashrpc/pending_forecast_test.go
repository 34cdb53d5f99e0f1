package main

import (
	"context"
	"errors"
	"math/big"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	gethrpc "github.com/ethereum/go-ethereum/rpc"
)

// blockInfoInit deploys a contract that returns (block.number, block.timestamp):
//
//	runtime: NUMBER PUSH1 0 MSTORE TIMESTAMP PUSH1 32 MSTORE PUSH1 64 PUSH1 0 RETURN  (13 bytes)
//	init:    PUSH1 13 PUSH1 12 PUSH1 0 CODECOPY PUSH1 13 PUSH1 0 RETURN              (12 bytes)
var blockInfoInit = common.FromHex("600d600c600039600d6000f3" + "4360005242602052604060" + "00f3")

// TestStandardPendingForecast checks `pending` on the standard endpoint as the next block as
// forecast (decisions.md): the next number after hardhat_mine, the next timestamp after
// evm_setNextBlockTimestamp, in eth_call, eth_estimateGas and debug_traceCall and in the
// pending block itself, which the sealed block then matches; the state is latest's.
func TestStandardPendingForecast(t *testing.T) {
	for _, chainType := range testChainTypes {
		t.Run(chainType, func(t *testing.T) { testStandardPendingForecast(t, chainType) })
	}
}

func testStandardPendingForecast(t *testing.T, chainType string) {
	ctx := context.Background()
	dir := t.TempDir()
	tn := startTestNode(t, testOptionsOf(dir, chainType))
	key := testOptionsAccounts(t)[0]
	from := addressOf(key)
	chainID, err := tn.std.ChainID(ctx)
	if err != nil {
		t.Fatal(err)
	}
	tx := signTx(t, key, chainID, 0, nil, new(big.Int), 200_000, blockInfoInit)
	if err := tn.pre.SendTransaction(ctx, tx); err != nil {
		t.Fatal(err)
	}
	tn.preconfirm(t)
	tn.seal(t)
	contract := crypto.CreateAddress(from, 0)
	if code, err := tn.std.CodeAt(ctx, contract, nil); err != nil || len(code) != 13 {
		t.Fatalf("contract code: %x %v", code, err)
	}

	var mined any
	if err := tn.stdRaw.Call(&mined, "hardhat_mine", "0x4"); err != nil {
		t.Fatal(err)
	}
	head, err := tn.std.HeaderByNumber(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	number, _ := callBlockInfo(t, tn.stdRaw, contract, "latest")
	if number != head.Number.Uint64() {
		t.Fatalf("standard endpoint, latest: block.number %d, want the head's %d", number, head.Number)
	}
	number, ts := callBlockInfo(t, tn.stdRaw, contract, "pending")
	if number != head.Number.Uint64()+1 || ts <= head.Time {
		t.Fatalf("standard endpoint, pending after hardhat_mine(4): block.number %d, timestamp %d; want %d and after %d", number, ts, head.Number.Uint64()+1, head.Time)
	}
	checkForecastBlock(t, tn.stdRaw, head, ts)

	next := head.Time + 1000
	var set any
	if err := tn.stdRaw.Call(&set, "evm_setNextBlockTimestamp", hexutil.Uint64(next)); err != nil {
		t.Fatal(err)
	}
	for _, ep := range []struct {
		name string
		cl   *gethrpc.Client
	}{{"standard", tn.stdRaw}, {"pre-confirmed", tn.preRaw}} {
		number, ts := callBlockInfo(t, ep.cl, contract, "pending")
		if number != head.Number.Uint64()+1 || ts != next {
			t.Fatalf("%s endpoint, pending after evm_setNextBlockTimestamp(%d): block.number %d, timestamp %d; want %d, %d", ep.name, next, number, ts, head.Number.Uint64()+1, next)
		}
	}
	checkForecastBlock(t, tn.stdRaw, head, next)

	// eth_estimateGas and debug_traceCall run in the same context: a call that reverts unless
	// block.timestamp is the next one's estimates only at pending.
	guard := timestampGuard(next)
	call := map[string]any{"from": from, "data": hexutil.Bytes(guard)}
	var est hexutil.Uint64
	if err := tn.stdRaw.Call(&est, "eth_estimateGas", call, "pending"); err != nil {
		t.Fatalf("standard endpoint: eth_estimateGas at pending of code that needs timestamp %d: %v", next, err)
	}
	if err := tn.stdRaw.Call(&est, "eth_estimateGas", call, "latest"); err == nil {
		t.Fatalf("standard endpoint: eth_estimateGas at latest of code that needs timestamp %d succeeded", next)
	}
	var trace struct {
		Failed      bool
		ReturnValue string
	}
	if err := tn.stdRaw.Call(&trace, "debug_traceCall", map[string]any{"to": contract}, "pending", map[string]any{"disableStorage": true}); err != nil {
		t.Fatal(err)
	}
	want := common.BigToHash(new(big.Int).Add(head.Number, common.Big1)).Hex()[2:] + common.BigToHash(new(big.Int).SetUint64(next)).Hex()[2:]
	if trace.Failed || strings.TrimPrefix(trace.ReturnValue, "0x") != want {
		t.Fatalf("standard endpoint: debug_traceCall at pending returned %s (failed %v), want %s", trace.ReturnValue, trace.Failed, want)
	}

	// State at pending is latest's; the nonce at pending is the pool's.
	for _, tag := range []string{"pending", "latest"} {
		var bal hexutil.Big
		if err := tn.stdRaw.Call(&bal, "eth_getBalance", from, tag); err != nil {
			t.Fatal(err)
		}
		if tag == "pending" {
			defer func(pending *big.Int) {
				if pending.Cmp(bal.ToInt()) != 0 {
					t.Errorf("standard endpoint: balance at pending %s, at latest %s", pending, bal.ToInt())
				}
			}((*big.Int)(&bal))
		}
	}
	if n, err := tn.std.PendingNonceAt(ctx, from); err != nil || n != 1 {
		t.Fatalf("standard endpoint: pending nonce %d, %v; want 1", n, err)
	}

	// The sealed block is the one forecast.
	if err := tn.stdRaw.Call(&mined, "evm_mine"); err != nil {
		t.Fatal(err)
	}
	sealed, err := tn.std.HeaderByNumber(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if sealed.Number.Uint64() != head.Number.Uint64()+1 || sealed.Time != next {
		t.Fatalf("sealed block %d at %d, forecast %d at %d", sealed.Number, sealed.Time, head.Number.Uint64()+1, next)
	}

	var sim any
	err = tn.stdRaw.Call(&sim, "eth_simulateV1", map[string]any{"blockStateCalls": []any{}}, "pending")
	var re gethrpc.Error
	if !errors.As(err, &re) || re.ErrorCode() != -32601 || !strings.Contains(err.Error(), "pre-confirmed endpoint") {
		t.Fatalf("standard endpoint: eth_simulateV1: %v, want -32601 naming the pre-confirmed endpoint", err)
	}

	// serve has no pre-confirmations: `pending` is the next block as forecast on both
	// endpoints, made from the head alone.
	tn.stop()
	std, pre := serveForTest(t, dir)
	for _, url := range []string{std, pre} {
		cl, err := gethrpc.DialContext(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		defer cl.Close()
		number, ts := callBlockInfo(t, cl, contract, "pending")
		if number != sealed.Number.Uint64()+1 || ts != sealed.Time+1 {
			t.Fatalf("serve %s: pending block.number %d, timestamp %d; want %d, %d", url, number, ts, sealed.Number.Uint64()+1, sealed.Time+1)
		}
		checkForecastBlock(t, cl, sealed, sealed.Time+1)
	}
}

// callBlockInfo calls the block-info contract at tag and returns (block.number, block.timestamp).
func callBlockInfo(t *testing.T, cl *gethrpc.Client, contract common.Address, tag string) (uint64, uint64) {
	t.Helper()
	var out hexutil.Bytes
	if err := cl.Call(&out, "eth_call", map[string]any{"to": contract}, tag); err != nil {
		t.Fatalf("eth_call at %s: %v", tag, err)
	}
	if len(out) != 64 {
		t.Fatalf("eth_call at %s: %x, want 64 bytes", tag, out)
	}
	return new(big.Int).SetBytes(out[:32]).Uint64(), new(big.Int).SetBytes(out[32:]).Uint64()
}

// checkForecastBlock checks the standard endpoint's pending block: the block after head at
// time ts, with no transactions, in the shape of a block.
func checkForecastBlock(t *testing.T, cl *gethrpc.Client, head *types.Header, ts uint64) {
	t.Helper()
	for _, fullTx := range []bool{false, true} {
		var b map[string]any
		if err := cl.Call(&b, "eth_getBlockByNumber", "pending", fullTx); err != nil {
			t.Fatal(err)
		}
		want := map[string]any{
			"number":       hexutil.EncodeBig(new(big.Int).Add(head.Number, common.Big1)),
			"parentHash":   head.Hash().Hex(),
			"timestamp":    hexutil.EncodeUint64(ts),
			"gasUsed":      "0x0",
			"stateRoot":    head.Root.Hex(),
			"transactions": []any{},
		}
		for k, w := range want {
			if got := b[k]; !equalJSON(got, w) {
				t.Fatalf("pending block (fullTx %v): %s = %v, want %v", fullTx, k, got, w)
			}
		}
		for _, k := range []string{"hash", "baseFeePerGas", "gasLimit", "miner", "logsBloom", "transactionsRoot", "receiptsRoot", "uncles"} {
			if b[k] == nil {
				t.Fatalf("pending block (fullTx %v): no %s in %v", fullTx, k, b)
			}
		}
	}
	var h map[string]any
	if err := cl.Call(&h, "eth_getHeaderByNumber", "pending"); err != nil {
		t.Fatal(err)
	}
	if h["number"] != hexutil.EncodeBig(new(big.Int).Add(head.Number, common.Big1)) || h["timestamp"] != hexutil.EncodeUint64(ts) {
		t.Fatalf("pending header: number %v timestamp %v", h["number"], h["timestamp"])
	}
}

func equalJSON(got, want any) bool {
	if w, ok := want.([]any); ok {
		g, ok := got.([]any)
		return ok && len(g) == len(w)
	}
	return got == want
}

// timestampGuard is call code that reverts unless block.timestamp is ts:
// PUSH8 ts TIMESTAMP EQ PUSH1 18 JUMPI PUSH1 0 DUP1 REVERT JUMPDEST STOP.
func timestampGuard(ts uint64) []byte {
	code := []byte{0x67}
	code = append(code, new(big.Int).SetUint64(ts).FillBytes(make([]byte, 8))...)
	return append(code, 0x42, 0x14, 0x60, 0x12, 0x57, 0x60, 0x00, 0x80, 0xfd, 0x5b, 0x00)
}
