package exec_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/flashrpc/flashrpc/internal/chain"
	"github.com/flashrpc/flashrpc/internal/exec"
	"github.com/flashrpc/flashrpc/internal/oprollup"
	"github.com/flashrpc/flashrpc/internal/preconf"
	"github.com/flashrpc/flashrpc/internal/sequencer"
	"github.com/flashrpc/flashrpc/internal/txpool"
)

// TestTraceFirstDenimBlock traces the BaseTime deposit of the first Denim block of a chain
// that crosses Denim, whose state before it has BaseTime's proxy but not its implementation:
// the replay installs the implementation before the block's transactions, as the block's
// execution did, so the trace shows the deposit succeed, as its receipt says.
func TestTraceFirstDenimBlock(t *testing.T) {
	const t0 = 1_800_000_000
	denim := uint64(t0 + 10)
	g := oprollup.DevGenesis(1337, nil, nil) // BaseTime's proxy only
	c, err := chain.Open(chain.Config{Genesis: g, Denim: &denim})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := c.Close(); err != nil {
			t.Error(err)
		}
	})
	now := time.Unix(t0, 0)
	seq := sequencer.New(sequencer.Config{
		L1: &oprollup.DevL1{GenesisTime: g.Timestamp}, Denim: &denim, Now: func() time.Time { return now },
	}, c, preconf.New(c), txpool.New(c.Config(), txpool.Config{}))
	ctx := context.Background()
	if err := seq.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(seq.Close)
	if _, err := seq.Seal(ctx); err != nil { // block 1, before Denim; block 2 opens
		t.Fatal(err)
	}
	now = time.Unix(int64(denim), 0)
	if _, err := seq.Seal(ctx); err != nil { // block 2, before Denim; block 3 opens at it
		t.Fatal(err)
	}
	block, err := seq.Seal(ctx) // block 3, the first Denim block
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := oprollup.BlockTimeMs(block.Time(), block.Transactions()); !ok || block.Time() != denim {
		t.Fatalf("block %d at %d is not the first Denim block (%d)", block.NumberU64(), block.Time(), denim)
	}
	if r := c.Receipts(block.Hash()); len(r) < 2 || r[1].Status != 1 {
		t.Fatal("the first Denim block's BaseTime deposit did not succeed")
	}
	parent := c.HeaderByHash(block.ParentHash())
	st, err := c.StateAt(parent)
	if err != nil {
		t.Fatal(err)
	}
	env := &exec.BlockEnv{Config: c.Config(), Chain: c.Context(), Header: block.Header(), Parent: parent,
		Hash: block.Hash(), Txs: block.Transactions(), State: st, Denim: c.Denim()}
	tracer := "callTracer"
	out, err := exec.TraceTransaction(ctx, env, 1, &exec.TraceConfig{Tracer: &tracer}, exec.TraceLimits{})
	if err != nil {
		t.Fatal(err)
	}
	var call struct {
		To    string `json:"to"`
		Error string `json:"error"`
	}
	if err := json.Unmarshal(out, &call); err != nil {
		t.Fatal(err)
	}
	if call.Error != "" {
		t.Fatalf("the trace of the BaseTime deposit (to %s) fails: %s", call.To, call.Error)
	}
}
