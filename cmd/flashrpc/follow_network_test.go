package main

import (
	"bytes"
	"context"
	"encoding/json"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"
	gethrpc "github.com/ethereum/go-ethereum/rpc"

	"github.com/flashrpc/flashrpc/internal/flashblocks"
	"github.com/flashrpc/flashrpc/internal/node"
)

// TestFollowOPMainnetSubblocks runs a replica (--network op-mainnet) of a `dev --network
// op-mainnet` primary through its subblocks feed, which carries no roots: its pending block
// is the primary's pre-confirmation and its sealed blocks are the primary's, byte for byte. A
// replica whose --network disagrees with the genesis is refused.
func TestFollowOPMainnetSubblocks(t *testing.T) {
	ctx := context.Background()
	tn := startTestNode(t, networkOptions(t, t.TempDir(), true, "--network", "op-mainnet"))
	bad := replicaOptions(tn, t.TempDir())
	bad.network = "base-mainnet"
	if n, err := startFollow(bad, nil); err == nil {
		n.Close()
		t.Fatal("a replica with --network base-mainnet of an op-mainnet genesis started")
	} else if !strings.Contains(err.Error(), "base-mainnet") {
		t.Fatalf("refusal does not name the network: %v", err)
	}
	o := replicaOptions(tn, t.TempDir())
	o.network = "op-mainnet"
	r := startTestReplica(t, o)
	keys := testOptionsAccounts(t)
	chainID := tn.Chain().Config().ChainID
	for n := uint64(0); n < 3; n++ {
		tx := signTx(t, keys[0], chainID, 2*n, &common.Address{0xc0}, big.NewInt(1), params.TxGas, nil)
		if err := tn.pre.SendTransaction(ctx, tx); err != nil {
			t.Fatal(err)
		}
		tn.preconfirm(t)
		r.waitInStep(t, tn.preRaw, true, "the first pre-confirmation")
		deploy := signTx(t, keys[0], chainID, 2*n+1, nil, big.NewInt(0), 200_000, logInit)
		if err := tn.pre.SendTransaction(ctx, deploy); err != nil {
			t.Fatal(err)
		}
		tn.preconfirm(t)
		r.waitInStep(t, tn.preRaw, true, "the second pre-confirmation")
		tn.seal(t)
		waitFor(t, "the sealed block on the replica", func() bool { return r.head() == n+1 })
		sameJSON(t, tn.stdRaw, r.stdRaw, "eth_getBlockByNumber", hexutil.EncodeUint64(n+1), true)
		sameJSON(t, tn.stdRaw, r.stdRaw, "eth_getTransactionReceipt", deploy.Hash())
	}
	if cfg := r.Chain().Config(); cfg.KarstTime == nil || cfg.OsakaTime == nil {
		t.Fatalf("replica rules: karst %v, osaka %v", cfg.KarstTime, cfg.OsakaTime)
	}
}

// TestFollowSubblockForged runs a replica of a `dev --network op-mainnet` primary behind a
// relay that swaps one subblock's last transaction for one the primary never saw (a contract
// creation that logs), its receipts root, gas used and DA footprint zeroed as a subblock may
// publish them: the replica serves it (nothing published contradicts it), then at the sealed
// block the forged transaction is gone, its log is retracted (removed: true to a pendingLogs
// subscriber), the mismatch is counted once, and the replica is in step again in the next block.
func TestFollowSubblockForged(t *testing.T) {
	ctx := context.Background()
	tn := startTestNode(t, networkOptions(t, t.TempDir(), true, "--network", "op-mainnet"))
	rl := startRelay(t, tn.Feed().URL)
	o := replicaOptions(tn, t.TempDir())
	o.feedURL, o.network = rl.url(), "op-mainnet"
	o.metricsPort = optionalPort{port: 0, set: true}
	r := startTestReplica(t, o)
	logs, subErr := subscribePreconfLogs(t, r.preURL)
	keys := testOptionsAccounts(t)
	chainID := tn.Chain().Config().ChainID
	to := common.Address{0xc0}

	first := signTx(t, keys[0], chainID, 0, &to, big.NewInt(1), params.TxGas, nil)
	if err := tn.pre.SendTransaction(ctx, first); err != nil {
		t.Fatal(err)
	}
	tn.preconfirm(t)
	r.waitInStep(t, tn.preRaw, false, "the first pre-confirmation")
	tn.seal(t)
	waitFor(t, "block 1 on the replica", func() bool { return r.head() == 1 })

	real := signTx(t, keys[0], chainID, 1, &to, big.NewInt(1), params.TxGas, nil)
	forged := signTx(t, keys[1], chainID, 0, nil, big.NewInt(0), 200_000, logRuntime) // init code that logs
	realEnc, forgedEnc := mustBinary(t, real), mustBinary(t, forged)
	var mu sync.Mutex
	swapped := false
	rl.always(func(p *flashblocks.Payload) {
		mu.Lock()
		defer mu.Unlock()
		txs := p.Diff.Transactions
		if swapped || len(txs) == 0 || !bytes.Equal(txs[len(txs)-1], realEnc) {
			return
		}
		txs[len(txs)-1] = hexutil.Bytes(forgedEnc)
		p.Diff.ReceiptsRoot, p.Diff.GasUsed, p.Diff.BlobGasUsed = common.Hash{}, 0, nil
		swapped = true
	})
	if err := tn.pre.SendTransaction(ctx, real); err != nil {
		t.Fatal(err)
	}
	tn.preconfirm(t)
	waitFor(t, "the forged transaction on the replica", func() bool {
		return string(rawCall(t, r.preRaw, "eth_getTransactionByHash", forged.Hash())) != "null"
	})
	nextLog := func(what string) types.Log {
		t.Helper()
		var got types.Log
		waitFor(t, what, func() bool {
			select {
			case l := <-logs:
				got = l
				return l.TxHash == forged.Hash()
			case err := <-subErr:
				t.Fatalf("logs subscription: %v", err)
			default:
			}
			return false
		})
		return got
	}
	if l := nextLog("the forged transaction's log"); l.Removed {
		t.Fatalf("the forged log arrived removed: %+v", l)
	}

	tn.seal(t)
	waitFor(t, "block 2 on the replica", func() bool { return r.head() == 2 })
	waitFor(t, "the forged transaction gone", func() bool {
		return string(rawCall(t, r.preRaw, "eth_getTransactionByHash", forged.Hash())) == "null"
	})
	if l := nextLog("the forged log's retraction"); !l.Removed {
		t.Fatalf("second log of the forged transaction not removed: %+v", l)
	}
	sameJSON(t, tn.stdRaw, r.stdRaw, "eth_getBlockByNumber", "0x2", true)
	if n := metricValue(scrapeMetrics(t, r.MetricsURL()), "flashrpc_follow_preconf_mismatch_total"); n != 1 {
		t.Fatalf("flashrpc_follow_preconf_mismatch_total %v, want 1", n)
	}

	next := signTx(t, keys[0], chainID, 2, &to, big.NewInt(1), params.TxGas, nil)
	if err := tn.pre.SendTransaction(ctx, next); err != nil {
		t.Fatal(err)
	}
	tn.preconfirm(t)
	r.waitInStep(t, tn.preRaw, true, "back in step in the next block")
	tn.seal(t)
	waitFor(t, "block 3 on the replica", func() bool { return r.head() == 3 })
	sameJSON(t, tn.stdRaw, r.stdRaw, "eth_getBlockByNumber", "0x3", true)
	r.wantAbsent(t, forged.Hash())
}

// subscribePreconfLogs subscribes to every pre-confirmed log (pendingLogs, Base's stream:
// retracted logs come again with removed: true) over the WebSocket of the pre-confirmed
// endpoint at httpURL.
func subscribePreconfLogs(t *testing.T, httpURL string) (<-chan types.Log, <-chan error) {
	t.Helper()
	ws, err := gethrpc.Dial("ws" + strings.TrimPrefix(httpURL, "http"))
	if err != nil {
		t.Fatal(err)
	}
	logs := make(chan types.Log, 16)
	sub, err := ws.EthSubscribe(context.Background(), logs, "pendingLogs", map[string]any{})
	if err != nil {
		ws.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() { sub.Unsubscribe(); ws.Close() })
	return logs, sub.Err()
}

// TestFollowNetworkGenesisAndRemote: a replica whose genesis file schedules Karst without Osaka
// (as a registry chain's genesis does) runs Karst as flashrpc does, Osaka's EVM from Karst's
// time, and stays in step with a `dev --network op-mainnet` primary; a remote-state replica of
// the same primary with --network op-mainnet runs Karst's rules, and one with --network
// base-mainnet runs Base's rules as of now (as `dev --network base-mainnet` does, without
// Beryl and Cobalt), without the Denim its upstream does not run.
func TestFollowNetworkGenesisAndRemote(t *testing.T) {
	ctx := context.Background()
	tn := startTestNode(t, networkOptions(t, t.TempDir(), true, "--network", "op-mainnet"))
	data, err := os.ReadFile(filepath.Join(tn.Chain().DataDir(), node.GenesisFileName))
	if err != nil {
		t.Fatal(err)
	}
	var g map[string]any
	if err := json.Unmarshal(data, &g); err != nil {
		t.Fatal(err)
	}
	cfg := g["config"].(map[string]any)
	if _, ok := cfg["karstTime"]; !ok {
		t.Fatalf("genesis config has no karstTime: %v", cfg)
	}
	delete(cfg, "osakaTime")
	path := filepath.Join(t.TempDir(), "genesis.json")
	if data, err = json.Marshal(g); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	o := replicaOptions(tn, t.TempDir())
	o.genesis, o.network = path, "op-mainnet"
	r := startTestReplica(t, o)
	if c := r.Chain().Config(); c.OsakaTime == nil || *c.OsakaTime != 0 {
		t.Fatalf("replica's osaka %v, want Karst's time (0)", c.OsakaTime)
	}
	keys := testOptionsAccounts(t)
	deploy := signTx(t, keys[0], tn.Chain().Config().ChainID, 0, nil, big.NewInt(0), 200_000, logInit)
	if err := tn.pre.SendTransaction(ctx, deploy); err != nil {
		t.Fatal(err)
	}
	tn.preconfirm(t)
	r.waitInStep(t, tn.preRaw, true, "the pre-confirmation")
	tn.seal(t)
	waitFor(t, "block 1 on the replica", func() bool { return r.head() == 1 })
	sameJSON(t, tn.stdRaw, r.stdRaw, "eth_getBlockByNumber", "0x1", true)

	base := remoteReplicaOptions(tn, t.TempDir(), tn.Feed().URL)
	base.network = "base-mainnet"
	bn, err := startFollow(base, nil)
	if err != nil {
		t.Fatalf("a remote-state replica with --network base-mainnet, Base's rules as of now as dev --network runs them: %v", err)
	}
	if c := bn.Chain().Config(); c.OsakaTime == nil || *c.OsakaTime != 0 || c.KarstTime != nil || bn.Chain().Denim() != nil {
		t.Fatalf("remote-state replica with Base's rules: osaka %v, karst %v, denim %v; want Azul from genesis, no Karst, and no Denim the upstream does not run", c.OsakaTime, c.KarstTime, bn.Chain().Denim())
	}
	if err := bn.Close(); err != nil {
		t.Fatal(err)
	}
	ro := remoteReplicaOptions(tn, t.TempDir(), tn.Feed().URL)
	ro.network = "op-mainnet"
	rr := startTestReplica(t, ro)
	if c := rr.Chain().Config(); c.KarstTime == nil || c.OsakaTime == nil {
		t.Fatalf("remote-state replica: karst %v, osaka %v; want Karst's rules", c.KarstTime, c.OsakaTime)
	}
	var out hexutil.Bytes
	if err := rr.preRaw.Call(&out, "eth_call", pairingCall(301, 0), "latest"); err == nil {
		t.Fatalf("remote-state replica: a pairing of 301 pairs succeeded (%x); Karst caps it", out)
	}
}
