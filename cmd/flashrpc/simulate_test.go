package main

import (
	"context"
	"math/big"
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
	key := tn.accounts[0].Key
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
	if uint64(first.Number) != pending.NumberU64() || uint64(first.Timestamp) != pending.Time() || first.ParentHash != tn.chain.Head().Hash() {
		t.Fatalf("first simulated block: number %d time %d parent %s; want the block in progress %d at %d on %s",
			first.Number, first.Timestamp, first.ParentHash, pending.NumberU64(), pending.Time(), tn.chain.Head().Hash())
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
	if rpcErr, ok := err.(gethrpc.Error); !ok || rpcErr.ErrorCode() != -32601 {
		t.Fatalf("standard endpoint eth_simulateV1: %v, want -32601", err)
	}
}
