package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/flashrpc/flashrpc/internal/networks"
)

// TestDevBaseBanner: `dev --network base-mainnet` starts, and its banner and --help say what
// the chain is: Denim from genesis, 200 ms blocks without pre-confirmations, and a warning
// naming Beryl and Cobalt with their activations and what the chain lacks without them.
func TestDevBaseBanner(t *testing.T) {
	o := networkOptions(t, t.TempDir(), false, "--network", "base-mainnet", "--chain-id", "8453")
	// The flags keep their defaults: 200 ms blocks without pre-confirmations are Denim's, which
	// the node gives a chain that runs Denim; a fork of Base before Denim keeps 2 s / 200 ms.
	if o.blockTime != 2*time.Second || o.preconfInterval != 200*time.Millisecond {
		t.Fatalf("--network base-mainnet parsed to blocks every %s, pre-confirmations every %s; want the defaults 2s, 200ms", o.blockTime, o.preconfInterval)
	}
	tn := startTestNode(t, o)
	if cfg := tn.Config(); cfg.BlockTime != networks.DenimBlockTime || cfg.PreconfInterval != 0 {
		t.Fatalf("the Denim chain's cadence: %s / %s, want 200ms / none", cfg.BlockTime, cfg.PreconfInterval)
	}
	if id := tn.Chain().Config().ChainID.Uint64(); id != 8453 {
		t.Fatalf("chain id %d, want 8453", id)
	}
	var b bytes.Buffer
	printDevBanner(&b, o, tn.Dev)
	for _, want := range []string{
		"WARNING", "beryl (active on base-mainnet since 1782410400, 2026-06-25 18:00 UTC): no B20",
		"cobalt (active on base-mainnet since 1790791200, 2026-09-30 18:00 UTC): EIP-8130",
		"Denim (Base's 200 ms blocks) from genesis", "gas limit 18750000 per block",
		"no pre-confirmations (Base publishes none since Denim), blocks sealed every 200ms",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("banner lacks %q:\n%s", want, b.String())
		}
	}
	code, out, _ := runCommand("dev", "--help")
	for _, want := range []string{"Beryl", "Cobalt", "EIP-8130", "B20", "base-mainnet", "Denim"} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("dev --help lacks %q (exit %d)", want, code)
		}
	}
}

// TestDenimKillAt5Hz runs `dev --network base-mainnet` (a block every 200 ms) in a separate
// process under a stream of transfers, records every block a client saw sealed on the
// standard endpoint, kills the process with SIGKILL mid-stream, and checks that a node
// restarted on the same data directory has each of those blocks with the same hash, and runs
// Denim from the chain it finds.
func TestDenimKillAt5Hz(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the flashrpc binary; skipped with -short")
	}
	ctx := context.Background()
	dir, seen := killedUnderLoad(t, 25, nil, "--network", "base-mainnet")

	tn := startTestNode(t, testOptions(dir))
	if d := tn.Chain().Denim(); d == nil || *d != 0 {
		t.Fatalf("restarted: Denim %v, want the chain's (0)", d)
	}
	checkSeenBlocks(t, tn, seen)
	// The restarted node seals Denim blocks on its own (200 ms, from the chain's Denim): a
	// block above the head it restarted with, 200 ms after its parent.
	restartHead := tn.Chain().Head().Number.Uint64()
	waitFor(t, "a block sealed by the restarted node", func() bool {
		n, err := tn.std.BlockNumber(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return n > restartHead
	})
	parent, sealed := blockMs(t, tn.stdRaw, restartHead), blockMs(t, tn.stdRaw, restartHead+1)
	if parent.TimestampMs == nil || sealed.TimestampMs == nil || uint64(*sealed.TimestampMs) != uint64(*parent.TimestampMs)+200 {
		t.Fatalf("block %d sealed after the restart at %v ms, its parent at %v ms; want 200 ms later", restartHead+1, sealed.TimestampMs, parent.TimestampMs)
	}
}
