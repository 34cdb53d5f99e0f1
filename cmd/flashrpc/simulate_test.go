package main

import (
	"context"
	"io"
	"math/big"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"
	gethrpc "github.com/ethereum/go-ethereum/rpc"
)

// TestSimulatePending simulates on top of the block in progress: a contract that is only
// pre-confirmed can be called, and the first simulated block is the block in progress (its
// number and timestamp, parent = the sealed head). The standard endpoint has no eth_simulateV1.
func TestSimulatePending(t *testing.T) {
	ctx := context.Background()
	tn := startTestNode(t, testOptions(t.TempDir()))
	key := tn.Accounts()[0].Key
	deploy := signTx(t, key, big.NewInt(1337), 0, nil, new(big.Int), 200_000, logInit)
	contract := crypto.CreateAddress(addressOf(key), 0)
	if err := tn.pre.SendTransaction(ctx, deploy); err != nil {
		t.Fatal(err)
	}
	tn.preconfirm(t)
	pending, err := tn.pre.BlockByNumber(ctx, pendingTag)
	if err != nil {
		t.Fatal(err)
	}

	type call struct {
		Status  hexutil.Uint64 `json:"status"`
		Logs    []struct{ Topics []common.Hash }
		GasUsed hexutil.Uint64 `json:"gasUsed"`
	}
	var blocks []struct {
		Number     hexutil.Uint64 `json:"number"`
		Timestamp  hexutil.Uint64 `json:"timestamp"`
		ParentHash common.Hash    `json:"parentHash"`
		Calls      []call         `json:"calls"`
	}
	opts := map[string]any{"blockStateCalls": []any{
		map[string]any{"calls": []any{map[string]any{"from": addressOf(key), "to": contract}}},
		map[string]any{"calls": []any{map[string]any{"from": addressOf(key), "to": contract}}},
	}}
	if err := tn.preRaw.CallContext(ctx, &blocks, "eth_simulateV1", opts, "pending"); err != nil {
		t.Fatal(err)
	}
	if len(blocks) != 2 {
		t.Fatalf("%d simulated blocks, want 2", len(blocks))
	}
	first := blocks[0]
	if uint64(first.Number) != pending.NumberU64() || uint64(first.Timestamp) != pending.Time() || first.ParentHash != tn.Chain().Head().Hash() {
		t.Fatalf("first simulated block: number %d time %d parent %s; want the block in progress %d at %d on %s",
			first.Number, first.Timestamp, first.ParentHash, pending.NumberU64(), pending.Time(), tn.Chain().Head().Hash())
	}
	if uint64(blocks[1].Number) != pending.NumberU64()+1 || uint64(blocks[1].Timestamp) != pending.Time()+12 {
		t.Fatalf("second simulated block: number %d time %d", blocks[1].Number, blocks[1].Timestamp)
	}
	for i, b := range blocks {
		if len(b.Calls) != 1 || b.Calls[0].Status != 1 || len(b.Calls[0].Logs) != 1 || b.Calls[0].Logs[0].Topics[0] != logTopic {
			t.Fatalf("block %d: the pre-confirmed contract did not run: %+v", i, b.Calls)
		}
	}

	// The same on latest fails to reach the contract (it is not sealed): no log.
	if err := tn.preRaw.CallContext(ctx, &blocks, "eth_simulateV1", opts, "latest"); err != nil {
		t.Fatal(err)
	}
	if len(blocks[0].Calls[0].Logs) != 0 {
		t.Fatal("latest sees the pre-confirmed contract")
	}
	err = tn.stdRaw.CallContext(ctx, &blocks, "eth_simulateV1", opts, "pending")
	if rpcErr, ok := err.(gethrpc.Error); !ok || rpcErr.ErrorCode() != -32601 || !strings.Contains(err.Error(), "pre-confirmed endpoint serves it") {
		t.Fatalf("standard endpoint eth_simulateV1: %v, want -32601 naming the pre-confirmed endpoint", err)
	}
}

// TestSimulateLimitFlags: the eth_simulateV1 limit flags reach the API: a request over them is
// -38026 with go-ethereum's text, one within them runs.
func TestSimulateLimitFlags(t *testing.T) {
	fs, o := devFlags(io.Discard)
	if err := fs.Parse([]string{"--rpc.simulate.max-calls", "2", "--rpc.simulate.max-calls-per-block", "1", "--rpc.simulate.max-blocks", "3"}); err != nil {
		t.Fatal(err)
	}
	base := testOptions(t.TempDir())
	o.DataDir, o.HTTPPort, o.PreconfPort, o.feed.Port = base.DataDir, 0, 0, 0
	o.blockTime, o.preconfInterval = 0, 0
	tn := startTestNode(t, o)
	call := `{"from":"` + addressOf(tn.Accounts()[0].Key).Hex() + `"}`
	for _, tc := range []struct{ blocks, want string }{
		{`[{"calls":[` + call + `]},{"calls":[` + call + `]}]`, `"result"`},
		{`[{"calls":[` + call + `]},{"calls":[` + call + `]},{"calls":[` + call + `]}]`, `{"code":-38026,"message":"too many calls: 3 \u003e 2"}`},
		{`[{"calls":[` + call + `,` + call + `]}]`, `{"code":-38026,"message":"too many calls in block: 2 \u003e 1"}`},
		{`[{},{},{},{}]`, `{"code":-38026,"message":"too many blocks"}`},
	} {
		body := `{"jsonrpc":"2.0","id":1,"method":"eth_simulateV1","params":[{"blockStateCalls":` + tc.blocks + `},"latest"]}`
		if got := string(postJSON(t, tn.preURL, body)); !strings.Contains(got, tc.want) {
			t.Errorf("%s\n got %s\nwant %s", tc.blocks, got, tc.want)
		}
	}
}
