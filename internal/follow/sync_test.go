package follow

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/flashrpc/flashrpc/internal/chain"
	"github.com/flashrpc/flashrpc/internal/flashblocks"
	"github.com/flashrpc/flashrpc/internal/networks"
	"github.com/flashrpc/flashrpc/internal/preconf"
)

// lagoonGenesis returns a chain configuration whose genesis schedules lagoonTime 20, a fork
// flashrpc does not run.
func lagoonGenesis(t *testing.T) func() *chain.Config {
	return func() *chain.Config {
		g := chain.DevGenesis(chain.DefaultChainID, nil)
		lagoon := uint64(20)
		g.Config.LagoonTime = &lagoon
		return &chain.Config{DataDir: t.TempDir(), Genesis: g}
	}
}

// sealEmpty seals an empty block on c's head, 12 s after it.
func sealEmpty(t *testing.T, c *chain.Chain) *types.Block {
	t.Helper()
	ctx := context.Background()
	p := preconf.New(c)
	head := c.Head()
	if _, err := p.Open(ctx, preconf.NextAttributes(c.Config(), head, head.Time+12, common.Address{}, nil), preconf.PublishOptions{}); err != nil {
		t.Fatal(err)
	}
	b, err := p.Seal(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestFollowRefusesForkNotRun gives a replica the upstream's blocks 1 (time 12) and 2 (time
// 24) of a chain that schedules Lagoon at 20: block 1 is inserted, block 2 refused before it
// executes, the refusal logged with the fork, its activation and the block.
func TestFollowRefusesForkNotRun(t *testing.T) {
	g := lagoonGenesis(t)
	src, err := chain.Open(*g())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { src.Close() })
	b1, b2 := sealEmpty(t, src), sealEmpty(t, src)

	c, err := chain.Open(*g())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	var logs bytes.Buffer
	f, err := New(Config{Upstream: "http://127.0.0.1:1", Logger: slog.New(slog.NewTextHandler(&logs, nil))}, c, preconf.New(c))
	if err != nil {
		t.Fatal(err)
	}
	if f.insert(context.Background(), []*types.Block{b1, b2}) {
		t.Fatal("blocks across lagoon inserted")
	}
	if c.Head().Hash() != b1.Hash() {
		t.Fatalf("head %d, want block 1", c.Head().Number)
	}
	want := "fork lagoon (activation 20) is active at block 2 (time 24): flashrpc does not run its rules; refusing to execute"
	if !strings.Contains(logs.String(), want) {
		t.Fatalf("log %q lacks %q", logs.String(), want)
	}
	if f.insert(context.Background(), []*types.Block{b2}) || c.Head().Hash() != b1.Hash() {
		t.Fatal("block 2 inserted on its own")
	}
}

// TestFeedRefusesForkNotRun: index 0 of a block at which a fork flashrpc does not run is
// active (lagoon at time 20; the block at time 24) is refused before anything executes, as
// its sealed block is, and one before the fork is not refused for its rules.
func TestFeedRefusesForkNotRun(t *testing.T) {
	g := lagoonGenesis(t)
	c, err := chain.Open(*g())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	f, err := New(Config{Upstream: "http://127.0.0.1:1"}, c, preconf.New(c))
	if err != nil {
		t.Fatal(err)
	}
	head := c.Head()
	index0 := func(time uint64) *flashblocks.Payload {
		return &flashblocks.Payload{
			Base: &flashblocks.Base{
				ParentHash:    head.Hash(),
				BlockNumber:   hexutil.Uint64(head.Number.Uint64() + 1),
				GasLimit:      hexutil.Uint64(head.GasLimit),
				Timestamp:     hexutil.Uint64(time),
				BaseFeePerGas: (*hexutil.Big)(head.BaseFee),
			},
			Metadata: flashblocks.Metadata{BlockNumber: head.Number.Uint64() + 1},
		}
	}
	err = f.open(context.Background(), index0(24), nil)
	var nr *networks.NotRunError
	if !errors.As(err, &nr) || !strings.Contains(err.Error(), "fork lagoon (activation 20) is active at block 1 (time 24)") {
		t.Fatalf("index 0 after lagoon: %v, want the refusal naming lagoon", err)
	}
	if err := f.open(context.Background(), index0(head.Time+1), nil); errors.As(err, &nr) {
		t.Fatalf("index 0 before lagoon refused for its rules: %v", err)
	}
}
