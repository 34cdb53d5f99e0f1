package node

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common/hexutil"
	gethrpc "github.com/ethereum/go-ethereum/rpc"

	"github.com/flashrpc/flashrpc/internal/oprollup"
)

// denimBlock is what TestDevBaseNetwork reads of a block.
type denimBlock struct {
	Number       hexutil.Uint64  `json:"number"`
	Timestamp    hexutil.Uint64  `json:"timestamp"`
	TimestampMs  *hexutil.Uint64 `json:"timestampMs"`
	GasLimit     hexutil.Uint64  `json:"gasLimit"`
	Transactions []struct {
		To *string `json:"to"`
	} `json:"transactions"`
}

func latestDenimBlock(t *testing.T, c *gethrpc.Client) denimBlock {
	t.Helper()
	var b denimBlock
	if err := c.Call(&b, "eth_getBlockByNumber", "latest", true); err != nil {
		t.Fatal(err)
	}
	return b
}

// TestDevBaseNetwork: `dev --network base-mainnet` creates a chain that runs Denim from
// genesis (BaseTime installed, the 2-second gas limit divided by 10), names Beryl and Cobalt
// as left out, and has no pre-confirmations; its blocks carry the BaseTime deposit and a
// millisecond time 200 after the parent's. Its genesis file carries the Denim time, read back
// as follow and import read it. Resumed without --network it keeps Denim from the chain; an
// explicit pre-confirmation interval is refused; a chain without Denim resumed with
// --network base-mainnet is refused; an explicit gas limit is each block's as given.
func TestDevBaseNetwork(t *testing.T) {
	dir := t.TempDir()
	cfg := testConfig(dir)
	cfg.Network = "base-mainnet"
	cfg.Explicit.BlockTime = true // sealed on request
	n := startTestDev(t, cfg)
	c := n.Chain()
	if d := c.Denim(); d == nil || *d != 0 {
		t.Fatalf("Denim %v, want from genesis", d)
	}
	var omitted []string
	for _, f := range n.Omitted() {
		omitted = append(omitted, f.Name)
	}
	if strings.Join(omitted, ",") != "beryl,cobalt" {
		t.Fatalf("omitted %v, want beryl and cobalt", omitted)
	}
	if got := n.Config(); got.PreconfInterval != 0 || got.BlockTime != 0 {
		t.Fatalf("cadence: interval %v, block time %v; want none and on request", got.PreconfInterval, got.BlockTime)
	}
	if g := c.Genesis(); g.GasLimit() != oprollup.DefaultGasLimit/10 {
		t.Fatalf("genesis gas limit %d, want %d", g.GasLimit(), oprollup.DefaultGasLimit/10)
	}
	st, err := c.StateAt(c.Genesis().Header())
	if err != nil {
		t.Fatal(err)
	}
	if len(st.GetCode(oprollup.BaseTimeImplementation)) == 0 {
		t.Fatal("no BaseTime implementation in the genesis")
	}

	rpc := dial(t, n.Endpoints()[0])
	var prev *uint64
	for range 3 {
		seal(t, rpc)
		b := latestDenimBlock(t, rpc)
		if len(b.Transactions) < 2 || b.Transactions[1].To == nil || !strings.EqualFold(*b.Transactions[1].To, oprollup.BaseTime.Hex()) {
			t.Fatalf("block %d: transaction 1 is not the BaseTime deposit: %+v", b.Number, b.Transactions)
		}
		if b.TimestampMs == nil || uint64(*b.TimestampMs)/1000 != uint64(b.Timestamp) {
			t.Fatalf("block %d: timestampMs %v, timestamp %d", b.Number, b.TimestampMs, b.Timestamp)
		}
		if ms := uint64(*b.TimestampMs); prev != nil && ms != *prev+200 {
			t.Fatalf("block %d: timestampMs %d, want %d", b.Number, ms, *prev+200)
		} else {
			prev = &ms
		}
	}

	g, denim, err := readGenesisFile(filepath.Join(dir, GenesisFileName))
	if err != nil {
		t.Fatal(err)
	}
	if denim == nil || *denim != 0 || g.ToBlock().Hash() != c.Genesis().Hash() {
		t.Fatalf("genesis file: Denim %v, hash %s; want 0 and the chain's %s", denim, g.ToBlock().Hash(), c.Genesis().Hash())
	}
	stopDev(t, n)

	resumed := testConfig(dir)
	resumed.Explicit.BlockTime = true
	n = startTestDev(t, resumed)
	if d := n.Chain().Denim(); d == nil || *d != 0 {
		t.Fatalf("resumed without --network: Denim %v", d)
	}
	if got := n.Config(); got.PreconfInterval != 0 {
		t.Fatalf("resumed: pre-confirmation interval %v", got.PreconfInterval)
	}
	rpc = dial(t, n.Endpoints()[0])
	seal(t, rpc)
	if b := latestDenimBlock(t, rpc); b.TimestampMs == nil || uint64(*b.TimestampMs) != *prev+200 {
		t.Fatalf("resumed: block %d timestampMs %v, want %d", b.Number, b.TimestampMs, *prev+200)
	}
	stopDev(t, n)

	interval := testConfig(dir)
	interval.PreconfInterval, interval.Explicit.PreconfInterval = 200_000_000, true
	if n, err := StartDev(interval); err == nil {
		stopDev(t, n)
		t.Fatal("a Denim chain started with a pre-confirmation interval")
	} else if !strings.Contains(err.Error(), "--preconf-interval") || !strings.Contains(err.Error(), "no pre-confirmations") {
		t.Fatalf("refusal: %v", err)
	}

	plain := t.TempDir()
	stopDev(t, startTestDev(t, testConfig(plain)))
	asBase := testConfig(plain)
	asBase.Network = "base-mainnet"
	if n, err := StartDev(asBase); err == nil {
		stopDev(t, n)
		t.Fatal("a chain without Denim resumed with --network base-mainnet")
	} else if !strings.Contains(err.Error(), "does not run Denim") {
		t.Fatalf("refusal: %v", err)
	}

	limited := testConfig(t.TempDir())
	limited.Network, limited.GasLimit, limited.Explicit.GasLimit = "base-sepolia", 30_000_000, true
	n = startTestDev(t, limited)
	if got := n.Chain().Genesis().GasLimit(); got != 30_000_000 {
		t.Fatalf("explicit gas limit: genesis has %d", got)
	}
}

// TestFollowDenimGenesis: a replica started from a Denim dev chain's genesis file runs Denim
// from the file's time (config.base.denim) and takes the primary's blocks, five of which may
// share one timestamp, with the same hashes.
func TestFollowDenimGenesis(t *testing.T) {
	cfg := testConfig(t.TempDir())
	cfg.Network = "base-mainnet"
	cfg.Explicit.BlockTime = true
	up := startTestDev(t, cfg)
	rpc := dial(t, up.Endpoints()[0])
	for range 6 {
		seal(t, rpc)
	}
	r, err := StartFollow(followConfig(up, t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	r.Endpoints().Serve()
	t.Cleanup(func() {
		if err := r.Close(); err != nil {
			t.Error(err)
		}
	})
	if d := r.Chain().Denim(); d == nil || *d != 0 {
		t.Fatalf("replica's Denim %v, want 0 from the genesis file", d)
	}
	deadline := time.Now().Add(20 * time.Second)
	for r.Chain().Head().Number.Uint64() < 6 {
		if time.Now().After(deadline) {
			t.Fatalf("replica at block %d, want 6", r.Chain().Head().Number)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if got, want := r.Chain().Head().Hash(), up.Chain().HeaderByNumber(6).Hash(); got != want {
		t.Fatalf("block 6: replica %s, primary %s", got, want)
	}
}
