package main

import (
	"bytes"
	"context"
	"encoding/json"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/params"

	"github.com/flashrpc/flashrpc/internal/flashblocks"
	"github.com/flashrpc/flashrpc/internal/networks"
)

// networkOptions parses a dev command line as runDev does, on loopback ports 0 in dataDir,
// and returns its options with the cadence --network gave; manual turns the timer off
// (dev_preconfirm / dev_seal).
func networkOptions(t *testing.T, dataDir string, manual bool, args ...string) *devOptions {
	t.Helper()
	var stderr bytes.Buffer
	o, err := parseDev(append([]string{"--datadir", dataDir, "--http.port", "0", "--preconf.port", "0", "--feed.port", "0"}, args...), &stderr, &stderr)
	if err != nil {
		t.Fatalf("%v: %v %s", args, err, stderr.String())
	}
	if manual {
		// As if given as 0: the node replaces a cadence not given with the network's.
		o.blockTime, o.preconfInterval = 0, 0
		o.given["block-time"], o.given["preconf-interval"] = true, true
	}
	return o
}

// runCommand runs a command line as main does: its exit code, stdout and stderr.
func runCommand(args ...string) (int, string, string) {
	var stdout, stderr bytes.Buffer
	code := run(args, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// TestNetworksCommand checks `flashrpc networks` and its --json: every network, OP Mainnet's
// and Unichain's cadence and feed format, Karst run, Base's forks after Azul not run.
func TestNetworksCommand(t *testing.T) {
	code, out, errOut := runCommand("networks")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	rows := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n")[1:] {
		rows[strings.Fields(line)[0]] = line
	}
	if len(rows) != len(networks.All()) || !strings.HasPrefix(out, "NAME") {
		t.Fatalf("%d rows for %d networks:\n%s", len(rows), len(networks.All()), out)
	}
	for name, want := range map[string][]string{
		"op-mainnet":       {" 10 ", " op ", " 2s ", " 250ms ", " subblocks ", "karst@1783526401"},
		"unichain-mainnet": {" 130 ", " 1s ", " 200ms ", " base ", "karst@"},
		"base-mainnet":     {" 8453 ", " 200ms ", "azul@1779991200", "beryl@1782410400 (not run)", "cobalt@1790791200 (not run)", "denim@1793901600"},
		"mainnet":          {" 1 ", " l1 ", " 12s ", " none ", "osaka@"},
	} {
		for _, w := range want {
			if !strings.Contains(rows[name], w) {
				t.Errorf("row of %s lacks %q: %q", name, w, rows[name])
			}
		}
	}
	if strings.Contains(rows["op-mainnet"], "not run") {
		t.Errorf("op-mainnet lists a fork not run: %s", rows["op-mainnet"])
	}

	code, out, errOut = runCommand("networks", "--json")
	if code != 0 {
		t.Fatalf("--json: exit %d: %s", code, errOut)
	}
	var list []map[string]json.RawMessage
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		t.Fatalf("--json: %v\n%s", err, out)
	}
	if len(list) != len(networks.All()) {
		t.Fatalf("--json: %d networks, want %d", len(list), len(networks.All()))
	}
	type fork struct {
		Name  string  `json:"name"`
		Block *uint64 `json:"block"`
		Time  *uint64 `json:"time"`
		Runs  bool    `json:"runs"`
	}
	type entry struct {
		Name            string `json:"name"`
		ChainID         uint64 `json:"chainId"`
		Kind            string `json:"kind"`
		Source          string `json:"source"`
		Forks           []fork `json:"forks"`
		BlockTime       string `json:"blockTime"`
		PreconfInterval string `json:"preconfInterval"`
		FeedFormat      string `json:"feedFormat"`
	}
	byName := map[string]entry{}
	for _, raw := range list {
		keys := make([]string, 0, len(raw))
		for k := range raw {
			keys = append(keys, k)
		}
		if len(raw) != 8 {
			t.Fatalf("--json entry has keys %v, want name, chainId, kind, source, forks, blockTime, preconfInterval, feedFormat", keys)
		}
		b, _ := json.Marshal(raw)
		var e entry
		if err := json.Unmarshal(b, &e); err != nil {
			t.Fatal(err)
		}
		byName[e.Name] = e
	}
	op := byName["op-mainnet"]
	if op.ChainID != 10 || op.Kind != "op" || op.BlockTime != "2s" || op.PreconfInterval != "250ms" || op.FeedFormat != "subblocks" || !strings.Contains(op.Source, "superchain registry") {
		t.Fatalf("op-mainnet: %+v", op)
	}
	runs := func(e entry, name string) (bool, bool) {
		for _, f := range e.Forks {
			if f.Name == name {
				return f.Runs, f.Time != nil
			}
		}
		t.Fatalf("%s lists no %s: %+v", e.Name, name, e.Forks)
		return false, false
	}
	if r, timed := runs(op, "karst"); !r || !timed {
		t.Fatalf("op-mainnet's karst: runs %v, timed %v", r, timed)
	}
	if r, _ := runs(byName["base-mainnet"], "beryl"); r {
		t.Fatal("base-mainnet's beryl listed as run")
	}
	if r, _ := runs(byName["base-mainnet"], "cobalt"); r {
		t.Fatal("base-mainnet's cobalt listed as run")
	}
	if r, _ := runs(byName["base-mainnet"], "denim"); !r {
		t.Fatal("base-mainnet's denim listed as not run")
	}
	if u := byName["unichain-mainnet"]; u.BlockTime != "1s" || u.PreconfInterval != "200ms" || u.FeedFormat != "base" {
		t.Fatalf("unichain-mainnet: %+v", u)
	}
	if e := byName["mainnet"]; e.Kind != "l1" || e.PreconfInterval != "0s" || e.FeedFormat != "none" {
		t.Fatalf("mainnet: %+v", e)
	}

	if code, out, _ := runCommand("networks", "--help"); code != 0 || !strings.Contains(out, "-json") || !strings.Contains(out, "--network") {
		t.Fatalf("networks --help: exit %d\n%s", code, out)
	}
	if code, out, _ := runCommand("--help"); code != 0 || !strings.Contains(out, "flashrpc networks") {
		t.Fatalf("--help does not list networks: exit %d\n%s", code, out)
	}
	for cmd, flags := range map[string][]string{"dev": {"-network", "-feed.format"}, "follow": {"-network"}} {
		code, out, _ := runCommand(cmd, "--help")
		for _, f := range flags {
			if code != 0 || !strings.Contains(out, f) {
				t.Fatalf("%s --help lacks %s: exit %d\n%s", cmd, f, code, out)
			}
		}
	}
}

// TestDevNetworkRefusals: a pre-confirmation interval on Base's networks (no
// pre-confirmations since Denim), an unknown name and a --chain-type that contradicts the
// network are refused before anything starts, each saying why.
func TestDevNetworkRefusals(t *testing.T) {
	ports := []string{"--http.port", "0", "--preconf.port", "0", "--feed.port", "0", "--datadir", t.TempDir()}
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"--network", "base-mainnet", "--preconf-interval", "200ms"}, []string{"--preconf-interval 200ms", "base-mainnet", "no pre-confirmations"}},
		{[]string{"--network", "base-sepolia", "--preconf-interval", "1s"}, []string{"--preconf-interval 1s", "base-sepolia"}},
		{[]string{"--network", "no-such-chain"}, []string{"no such network", "op-mainnet", "unichain-mainnet", "flashrpc networks"}},
		{[]string{"--network", "op-mainnet", "--chain-type", "l1"}, []string{"--chain-type l1", "op-mainnet"}},
		{[]string{"--network", "mainnet", "--chain-type", "op"}, []string{"--chain-type op", "mainnet"}},
		{[]string{"--network", "op-mainnet", "--feed.format", "rollup"}, []string{"--feed.format", "subblocks"}},
	} {
		code, _, errOut := runCommand(append(append([]string{"dev"}, tc.args...), ports...)...)
		if code != 1 {
			t.Errorf("%v: exit %d, want 1 (%s)", tc.args, code, errOut)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(errOut, w) {
				t.Errorf("%v: error lacks %q: %s", tc.args, w, errOut)
			}
		}
	}
}

// pairingZeros is the input of a bn256Pairing call with pairs pairs of points at infinity,
// whose product is the identity: the call returns 1 unless its input is refused.
func pairingCall(pairs, extra int) map[string]any {
	return map[string]any{"to": "0x0000000000000000000000000000000000000008", "data": hexutil.Encode(make([]byte, pairs*192+extra)), "gas": hexutil.Uint64(16_000_000)}
}

// clzCall runs CLZ(1) in init code that returns the result: 255 where CLZ (EIP-7939) exists.
var clzCall = map[string]any{"data": "0x6001" + "1e" + "60005260206000f3"}

// checkKarst checks Karst's rules on the endpoint at latest: CLZ works, a bn256Pairing call of
// 300 pairs succeeds and one past the cap of 57,600 bytes (301 pairs, or 57,601 bytes) fails.
func checkKarst(t *testing.T, tn *testNode, what string) {
	t.Helper()
	var out hexutil.Bytes
	if err := tn.preRaw.Call(&out, "eth_call", clzCall, "latest"); err != nil || new(big.Int).SetBytes(out).Uint64() != 255 {
		t.Fatalf("%s: CLZ(1) at latest: %x, %v; want 255", what, out, err)
	}
	if err := tn.preRaw.Call(&out, "eth_call", pairingCall(300, 0), "latest"); err != nil || len(out) != 32 || out[31] != 1 {
		t.Fatalf("%s: pairing of 300 pairs: %x, %v; want success", what, out, err)
	}
	for _, c := range []struct{ pairs, extra int }{{301, 0}, {300, 1}} {
		if err := tn.preRaw.Call(&out, "eth_call", pairingCall(c.pairs, c.extra), "latest"); err == nil {
			t.Fatalf("%s: a pairing call of %d bytes succeeded (%x); Karst caps its input at 57,600 bytes", what, c.pairs*192+c.extra, out)
		}
	}
}

// TestDevNetworkOPMainnet runs `dev --network op-mainnet`: OP Mainnet's cadence (2 s blocks,
// 250 ms pre-confirmations), its genesis gas limit, Karst's rules from genesis, chain id 1337,
// and a feed in the subblocks format (zero roots and block hash).
func TestDevNetworkOPMainnet(t *testing.T) {
	o := networkOptions(t, t.TempDir(), false, "--network", "op-mainnet")
	n, err := startDev(o, nil)
	if err != nil {
		t.Fatal(err)
	}
	cad, format := n.Config(), n.Feed().Format
	if err := n.Close(); err != nil {
		t.Fatal(err)
	}
	if cad.BlockTime != 2*time.Second || cad.PreconfInterval != 250*time.Millisecond || format != flashblocks.FormatSubblocks {
		t.Fatalf("block time %s, pre-confirmations %s, feed %s; want 2s, 250ms, subblocks", cad.BlockTime, cad.PreconfInterval, format)
	}
	tn := startTestNode(t, networkOptions(t, t.TempDir(), true, "--network", "op-mainnet"))
	cfg, nw := tn.Chain().Config(), mustNetwork(t, "op-mainnet")
	if cfg.ChainID.Uint64() != 1337 || cfg.KarstTime == nil || *cfg.KarstTime != 0 || cfg.OsakaTime == nil || *cfg.OsakaTime != 0 {
		t.Fatalf("chain id %s, karst %v, osaka %v; want 1337 with Karst and Osaka from genesis", cfg.ChainID, cfg.KarstTime, cfg.OsakaTime)
	}
	if gl := tn.Chain().Genesis().GasLimit(); nw.GasLimit == 0 || gl != nw.GasLimit {
		t.Fatalf("genesis gas limit %d, want op-mainnet's %d", gl, nw.GasLimit)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	feed, err := flashblocks.Dial(ctx, tn.Feed().URL)
	if err != nil {
		t.Fatal(err)
	}
	defer feed.Close()
	waitFor(t, "the feed's consumer", func() bool { return tn.Feed().Consumers() == 1 })
	keys := testOptionsAccounts(t)
	tx := signTx(t, keys[0], cfg.ChainID, 0, &common.Address{0xc0}, big.NewInt(1), params.TxGas, nil)
	if err := tn.pre.SendTransaction(ctx, tx); err != nil {
		t.Fatal(err)
	}
	tn.preconfirm(t)
	for seen := false; !seen; {
		p, err := feed.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if p.Diff.HasRoots() || p.Diff.StateRoot != (common.Hash{}) || p.Diff.BlockHash != (common.Hash{}) {
			t.Fatalf("flashblock %d of block %d has roots: state %s, hash %s; want the subblocks format", p.Index, p.Metadata.BlockNumber, p.Diff.StateRoot, p.Diff.BlockHash)
		}
		for _, raw := range p.Diff.Transactions {
			seen = seen || bytes.Equal(raw, mustBinary(t, tx))
		}
	}
	tn.seal(t)
	checkKarst(t, tn, "dev --network op-mainnet")
}

// TestDevNetworkUnichain runs `dev --network unichain-mainnet` on its own timer: Base's feed
// format, 200 ms pre-confirmations, and a block sealed every second (consecutive timestamps).
func TestDevNetworkUnichain(t *testing.T) {
	tn := startTestNode(t, networkOptions(t, t.TempDir(), false, "--network", "unichain-mainnet"))
	if cfg, format := tn.Config(), tn.Feed().Format; cfg.BlockTime != time.Second || cfg.PreconfInterval != 200*time.Millisecond || format != flashblocks.FormatBase {
		t.Fatalf("block time %s, pre-confirmations %s, feed %s; want 1s, 200ms, base", cfg.BlockTime, cfg.PreconfInterval, format)
	}
	waitFor(t, "three blocks", func() bool { return tn.Chain().Head().Number.Uint64() >= 3 })
	for n := uint64(2); n <= 3; n++ {
		h, prev := tn.Chain().HeaderByNumber(n), tn.Chain().HeaderByNumber(n-1)
		if h.Time != prev.Time+1 {
			t.Fatalf("block %d at %d, block %d at %d: want one second apart", n, h.Time, n-1, prev.Time)
		}
	}
	if cfg := tn.Chain().Config(); cfg.KarstTime == nil || *cfg.KarstTime != 0 {
		t.Fatalf("karst %v, want from genesis", cfg.KarstTime)
	}
}

// TestForkNetwork: a fork of an upstream whose chain id is OP Mainnet's refuses --network
// base-mainnet, naming both; a fork of a local `dev --network op-mainnet` chain (chain id 1337,
// no network's) with --network op-mainnet runs Karst's rules, and without it the dev chain's
// (no pairing cap).
func TestForkNetwork(t *testing.T) {
	up10 := startTestNode(t, networkOptions(t, t.TempDir(), true, "--chain-id", "10"))
	code, _, errOut := runCommand("dev", "--fork-url", up10.stdURL, "--network", "base-mainnet", "--http.port", "0", "--preconf.port", "0", "--feed.port", "-1", "--datadir", t.TempDir())
	if code != 1 || !strings.Contains(errOut, "base-mainnet") || !strings.Contains(errOut, "op-mainnet") || !strings.Contains(errOut, "chain id 10") {
		t.Fatalf("exit %d, want 1 with an error naming base-mainnet and op-mainnet: %s", code, errOut)
	}
	up10.stop()

	local := startTestNode(t, networkOptions(t, t.TempDir(), true, "--network", "op-mainnet"))
	local.seal(t)
	fk := startTestNode(t, networkOptions(t, t.TempDir(), true, "--fork-url", local.stdURL, "--network", "op-mainnet"))
	if cfg := fk.Chain().Config(); cfg.KarstTime == nil || cfg.ChainID.Uint64() != 1337 {
		t.Fatalf("fork: karst %v, chain id %s; want Karst on chain 1337", cfg.KarstTime, cfg.ChainID)
	}
	fk.seal(t)
	checkKarst(t, fk, "fork --network op-mainnet")

	plain := startTestNode(t, networkOptions(t, t.TempDir(), true, "--fork-url", local.stdURL))
	var out hexutil.Bytes
	if err := plain.preRaw.Call(&out, "eth_call", pairingCall(301, 0), "latest"); err != nil {
		t.Fatalf("fork without --network: a pairing of 301 pairs: %v; the dev chain's rules have no cap", err)
	}
}

func mustNetwork(t *testing.T, name string) networks.Network {
	t.Helper()
	nw, ok := networks.LookupName(name)
	if !ok {
		t.Fatalf("no network %s", name)
	}
	return nw
}

func mustBinary(t *testing.T, tx interface{ MarshalBinary() ([]byte, error) }) []byte {
	t.Helper()
	b, err := tx.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestDevNetworkResume: a datadir made with --network op-mainnet resumes with it (and without
// it), keeping its rules; --network naming rules the stored chain does not have is refused.
func TestDevNetworkResume(t *testing.T) {
	dir := t.TempDir()
	tn := startTestNode(t, networkOptions(t, dir, true, "--network", "op-mainnet"))
	tn.seal(t)
	tn.stop()
	for i, args := range [][]string{{"--network", "op-mainnet"}, nil} {
		tn = startTestNode(t, networkOptions(t, dir, true, args...))
		if cfg := tn.Chain().Config(); tn.Chain().Head().Number.Uint64() != uint64(i+1) || cfg.KarstTime == nil {
			t.Fatalf("%v: head %d, karst %v; want the stored chain with Karst", args, tn.Chain().Head().Number, cfg.KarstTime)
		}
		tn.seal(t)
		checkKarst(t, tn, "resumed")
		tn.stop()
	}
	for _, name := range []string{"mainnet", "base-sepolia"} {
		if n, err := startDev(networkOptions(t, dir, true, "--network", name), nil); err == nil {
			n.Close()
			t.Fatalf("--network %s resumed a datadir of op-mainnet's rules", name)
		}
	}
}
