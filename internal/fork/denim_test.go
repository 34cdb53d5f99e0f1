package fork_test

import (
	"context"
	"math/big"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/consensus/misc/eip1559"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/flashrpc/flashrpc/internal/api"
	"github.com/flashrpc/flashrpc/internal/chain"
	"github.com/flashrpc/flashrpc/internal/fork"
	"github.com/flashrpc/flashrpc/internal/oprollup"
	"github.com/flashrpc/flashrpc/internal/preconf"
	"github.com/flashrpc/flashrpc/internal/rpc"
	"github.com/flashrpc/flashrpc/internal/sequencer"
	"github.com/flashrpc/flashrpc/internal/txpool"
)

// denimT0 is the upstreams' clock: after Denim's activation on Base, and after the tests' own
// clock, so that a fork's first block takes its time from the fork block, not the clock.
const denimT0 = 1_900_000_000

// opUpstream serves on loopback an OP Stack chain with genesis g that runs Denim from denim
// (nil: not at all), sealed by a sequencer whose clock stands at denimT0, and seals blocks on
// it.
func opUpstream(t *testing.T, g *core.Genesis, denim *uint64, blocks int) (*chain.Chain, string) {
	t.Helper()
	c, err := chain.Open(chain.Config{DataDir: t.TempDir(), Genesis: g, Denim: denim})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := c.Close(); err != nil {
			t.Error(err)
		}
	})
	seq := sequencer.New(sequencer.Config{
		L1: &oprollup.DevL1{GenesisTime: g.Timestamp}, Denim: denim, Now: func() time.Time { return time.Unix(denimT0, 0) },
	}, c, preconf.New(c), txpool.New(c.Config(), txpool.Config{}))
	ctx := context.Background()
	if err := seq.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(seq.Close)
	for range blocks {
		if _, err := seq.Seal(ctx); err != nil {
			t.Fatal(err)
		}
	}
	srv := rpc.NewServer(rpc.Config{}, api.New(api.Config{}, api.Backend{Chain: c}).Service())
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Shutdown(context.Background()) })
	return c, "http://" + ln.Addr().String()
}

// sealOnFork seals one block on the fork c with its own sequencer, as the dev node runs it.
func sealOnFork(t *testing.T, c *chain.Chain) *types.Block {
	t.Helper()
	l1, err := fork.Of(c).L1()
	if err != nil {
		t.Fatal(err)
	}
	seq := sequencer.New(sequencer.Config{L1: l1, Denim: c.Denim()}, c, preconf.New(c), txpool.New(c.Config(), txpool.Config{}))
	ctx := context.Background()
	if err := seq.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer seq.Close()
	b, err := seq.Seal(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// checkDenimBlock fails unless b, a block of c, is a Denim block at Tms ms whose deposits
// (L1 attributes, BaseTime) succeeded.
func checkDenimBlock(t *testing.T, c *chain.Chain, b *types.Block, ms uint64) {
	t.Helper()
	got, ok := oprollup.BlockTimeMs(b.Time(), b.Transactions())
	if !ok || got != ms {
		t.Fatalf("block %d: millisecond time %d (a Denim block: %v), want %d", b.NumberU64(), got, ok, ms)
	}
	if want := oprollup.BaseTimeDeposit(b.NumberU64(), uint16(ms%1000)); b.Transactions()[1].Hash() != want.Hash() {
		t.Fatalf("block %d: transaction 1 is not the BaseTime deposit of part %d", b.NumberU64(), ms%1000)
	}
	receipts := c.Receipts(b.Hash())
	if len(receipts) < 2 || receipts[0].Status != types.ReceiptStatusSuccessful || receipts[1].Status != types.ReceiptStatusSuccessful {
		t.Fatalf("block %d: the deposits failed (%d receipts)", b.NumberU64(), len(receipts))
	}
	st, err := c.StateAt(b.Header())
	if err != nil {
		t.Fatal(err)
	}
	if part := st.GetState(oprollup.BaseTime, common.Hash{}); part != common.BigToHash(new(big.Int).SetUint64(ms%1000)) {
		t.Fatalf("block %d: BaseTime's slot 0 = %s, want part %d", b.NumberU64(), part, ms%1000)
	}
	if c.TimeMs(b.Header()) == nil || *c.TimeMs(b.Header()) != ms {
		t.Fatalf("block %d: the chain's timestampMs %v, want %d", b.NumberU64(), c.TimeMs(b.Header()), ms)
	}
}

// TestForkDenim forks a local chain that took Base mainnet's chain id and runs Denim from
// genesis (as `flashrpc dev --network base-mainnet --chain-id 8453` does): the fork is not
// taken for Base (whose Beryl flashrpc does not run) but run with Base's rules as of now, it
// runs Denim, its first block continues the upstream's millisecond time (Tms(N) + 200, the
// BaseTime deposit, N's gas parameters), and a block its sequencer seals on it too; reopened,
// the chain keeps its Denim time. A remote-state replica of the chain runs Denim as well.
func TestForkDenim(t *testing.T) {
	t.Parallel()
	zero := uint64(0)
	g, err := oprollup.DevDenimGenesis(8453, nil, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	up, url := opUpstream(t, g, &zero, 3)
	bN := up.BlockByNumber(3)
	msN, ok := oprollup.BlockTimeMs(bN.Time(), bN.Transactions())
	if !ok {
		t.Fatal("the upstream's block 3 is not a Denim block")
	}
	dir := t.TempDir()
	c, err := fork.Open(context.Background(), chain.Config{DataDir: dir}, forkConfig(url, 3))
	if err != nil {
		t.Fatalf("fork of a local chain with Base's chain id: %v", err)
	}
	if d := c.Denim(); d == nil || *d != 0 {
		t.Fatalf("the fork runs Denim from %v, want 0", d)
	}
	if info := fork.Of(c).Info(); !strings.Contains(info.Network, "Base") || !strings.Contains(info.Network, "local chain") {
		t.Fatalf("the fork's rules are %q, want Base's as of now, for a local chain", info.Network)
	}
	first := c.BlockByHash(c.Head().Hash())
	checkDenimBlock(t, c, first, msN+200)
	if first.GasLimit() != bN.GasLimit() || string(first.Extra()) != string(bN.Extra()) {
		t.Fatalf("first forked block: gas limit %d, extra %x; want N's %d, %x", first.GasLimit(), first.Extra(), bN.GasLimit(), bN.Extra())
	}
	next := sealOnFork(t, c)
	checkDenimBlock(t, c, next, msN+400)
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	c, err = fork.Open(context.Background(), chain.Config{DataDir: dir}, forkConfig(url, 3))
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := c.Close(); err != nil {
			t.Error(err)
		}
	}()
	if d := c.Denim(); d == nil || *d != 0 || c.Head().Hash() != next.Hash() {
		t.Fatalf("reopened: Denim %v, head %d", d, c.Head().Number)
	}

	// A remote-state replica of the same chain (follow --state remote) runs Denim too: the
	// upstream's blocks share timestamps and carry their millisecond time.
	fc := forkConfig(url, 3)
	fc.Replica, fc.Funded, fc.Balance = true, nil, nil
	r, err := fork.Open(context.Background(), chain.Config{DataDir: t.TempDir()}, fc)
	if err != nil {
		t.Fatalf("remote-state replica of a local chain with Base's chain id: %v", err)
	}
	defer func() {
		if err := r.Close(); err != nil {
			t.Error(err)
		}
	}()
	if d := r.Denim(); d == nil || *d != 0 || r.Head().Hash() != bN.Hash() {
		t.Fatalf("replica: Denim %v, head %d", d, r.Head().Number)
	}
}

// TestForkCrossesDenim forks a chain that does not run Denim (flashrpc's OP Stack dev chain,
// BaseTime's proxy without its implementation) with --network base-mainnet: the fork runs
// Base's rules as of now, and its first block is the first Denim block: part 0, the gas limit
// divided by 10 and the EIP-1559 denominator multiplied by 10, BaseTime's implementation
// installed before its deposits; the sequencer's next block follows by 200 ms.
func TestForkCrossesDenim(t *testing.T) {
	t.Parallel()
	g := oprollup.DevGenesis(1337, nil, nil)
	up, url := opUpstream(t, g, nil, 2)
	bN := up.BlockByNumber(2)
	if st, err := up.StateAt(bN.Header()); err != nil || len(st.GetCode(oprollup.BaseTimeImplementation)) != 0 {
		t.Fatalf("the upstream has BaseTime's implementation (%v)", err)
	}
	fc := forkConfig(url, 2)
	fc.Network = "base-mainnet"
	c, err := fork.Open(context.Background(), chain.Config{DataDir: t.TempDir()}, fc)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := c.Close(); err != nil {
			t.Error(err)
		}
	}()
	first := c.BlockByHash(c.Head().Hash())
	if d := c.Denim(); d == nil || *d != bN.Time()+1 || first.Time() != bN.Time()+1 {
		t.Fatalf("Denim from %v, first block at %d; want both at the fork block's time + 1 (%d)", d, first.Time(), bN.Time()+1)
	}
	checkDenimBlock(t, c, first, first.Time()*1000)
	if first.GasLimit() != bN.GasLimit()/oprollup.DenimGasScaling {
		t.Fatalf("first Denim block's gas limit %d, want %d / 10", first.GasLimit(), bN.GasLimit())
	}
	cfg := c.Config()
	denN, elN, _ := eip1559.DecodeOptimismExtraData(cfg, bN.Time(), bN.Extra())
	den, el, _ := eip1559.DecodeOptimismExtraData(cfg, first.Time(), first.Extra())
	if den != denN*oprollup.DenimGasScaling || el != elN {
		t.Fatalf("first Denim block's EIP-1559 parameters %d/%d, want %d×10/%d", den, el, denN, elN)
	}
	st, err := c.StateAt(first.Header())
	if err != nil {
		t.Fatal(err)
	}
	if code := st.GetCode(oprollup.BaseTimeImplementation); string(code) != string(oprollup.BaseTimeCode()) {
		t.Fatal("BaseTime's implementation is not installed at the first Denim block")
	}
	next := sealOnFork(t, c)
	checkDenimBlock(t, c, next, first.Time()*1000+200)
	if next.GasLimit() != first.GasLimit() || string(next.Extra()) != string(first.Extra()) {
		t.Fatal("the block after the first Denim block scaled the gas parameters again")
	}
}
