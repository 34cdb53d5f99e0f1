package main

import (
	"bytes"
	"context"
	"log/slog"
	"math/big"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"
	gethrpc "github.com/ethereum/go-ethereum/rpc"

	"github.com/flashrpc/flashrpc/internal/chain"
)

// TestStateSchemeFlags: --state.scheme and --history.state are in dev's and follow's --help,
// and what cannot work is refused before anything starts, with a message naming the flags.
func TestStateSchemeFlags(t *testing.T) {
	for _, cmd := range []string{"dev", "follow"} {
		code, out, _ := runCommand(cmd, "--help")
		if code != 0 || !strings.Contains(out, "-state.scheme") || !strings.Contains(out, "-history.state") {
			t.Errorf("%s --help (exit %d) lacks --state.scheme or --history.state", cmd, code)
		}
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"dev", "--state.scheme", "archive"}, `--state.scheme "archive": want hash or path`},
		{[]string{"dev", "--state.scheme", "path", "--fork-url", "http://127.0.0.1:1"}, "--state.scheme path does not apply with --fork-url"},
		{[]string{"dev", "--state.scheme", "hash", "--history.state", "10"}, "--history.state applies to --state.scheme path only"},
		{[]string{"follow", "--upstream", "http://127.0.0.1:1", "--state", "remote", "--state.scheme", "path"}, "--state.scheme path does not apply with --state remote"},
	} {
		code, _, errOut := runCommand(tc.args...)
		if code == 0 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want an error containing %q", tc.args, code, errOut, tc.want)
		}
	}
	// A datadir keeps its scheme: a hash chain is not opened as path.
	dir := t.TempDir()
	tn := startTestNode(t, testOptions(dir))
	if s := tn.Chain().Scheme(); s != chain.SchemeHash {
		t.Fatalf("a new dev chain's scheme is %s, want hash", s)
	}
	var banner bytes.Buffer
	printDevBanner(&banner, testOptions(dir), tn.Dev)
	if !strings.Contains(banner.String(), "state: hash scheme, every block's state kept") {
		t.Errorf("the banner does not say the state scheme:\n%s", banner.String())
	}
	if err := tn.Close(); err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	o, err := parseDev([]string{"--datadir", dir, "--http.port", "0", "--preconf.port", "0", "--feed.port", "-1", "--state.scheme", "path"}, &stderr, &stderr)
	if err != nil {
		t.Fatal(err)
	}
	if n, err := startDev(o, slog.New(slog.DiscardHandler)); err == nil {
		n.Close()
		t.Fatal("a hash datadir opened with --state.scheme path")
	} else if !strings.Contains(err.Error(), "give --state.scheme hash or none") {
		t.Fatalf("opening a hash datadir with path: %v", err)
	}
}

// TestPathSchemeKillAt5Hz runs `dev --network base-mainnet --state.scheme path` (a block every
// 200 ms) in a separate process under a stream of transfers, records every block a client saw
// sealed on the standard endpoint, kills the process with SIGKILL mid-stream, and checks that
// a node restarted on the same data directory has each of those blocks with the same hash:
// the path scheme had their state only in memory, and the restart executed them again.
func TestPathSchemeKillAt5Hz(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the flashrpc binary; skipped with -short")
	}
	ctx := context.Background()
	const blocks = 30
	dir, seen := killedUnderLoad(t, blocks, nil, "--network", "base-mainnet", "--state.scheme", "path")

	tn := startTestNode(t, testOptions(dir))
	if s := tn.Chain().Scheme(); s != chain.SchemePath {
		t.Fatalf("restarted with the scheme %s, want the datadir's (path)", s)
	}
	checkSeenBlocks(t, tn, seen)
	// The state of the last block a client saw is there again: the sender's nonce counts
	// every transfer sealed up to it.
	sender := testOptionsAccounts(t)[0]
	nonce, err := tn.std.NonceAt(ctx, crypto.PubkeyToAddress(sender.PublicKey), new(big.Int).SetUint64(blocks))
	if err != nil {
		t.Fatalf("state of block %d after kill -9: %v", blocks, err)
	}
	if nonce == 0 {
		t.Fatalf("sender's nonce 0 at block %d after kill -9", blocks)
	}
}

// TestPathSchemeKillAfterCheats is TestPathSchemeKillAt5Hz with the dev chain's cheats midway
// (anvil_setBalance and anvil_setCode on fresh addresses): the block that carries them cannot
// be executed again, so the path scheme writes its state to disk as it is sealed, and the
// restarted node has it and the blocks after it, with the same hashes and the cheats' state.
func TestPathSchemeKillAfterCheats(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the flashrpc binary; skipped with -short")
	}
	ctx := context.Background()
	const blocks = 30
	rich := common.HexToAddress("0x00000000000000000000000000000000c0ffee01")
	coded := common.HexToAddress("0x00000000000000000000000000000000c0ffee02")
	code := []byte{0x60, 0x2a, 0x5f, 0x52, 0x60, 0x20, 0x5f, 0xf3} // returns 42
	balance := big.NewInt(123_456_789)
	cheat := func(raw *gethrpc.Client) {
		var ok bool
		if err := raw.Call(&ok, "anvil_setBalance", rich, hexutil.EncodeBig(balance)); err != nil {
			t.Fatalf("anvil_setBalance: %v", err)
		}
		if err := raw.Call(&ok, "anvil_setCode", coded, hexutil.Bytes(code)); err != nil {
			t.Fatalf("anvil_setCode: %v", err)
		}
	}
	dir, seen := killedUnderLoad(t, blocks, cheat, "--network", "base-mainnet", "--state.scheme", "path")

	tn := startTestNode(t, testOptions(dir))
	checkSeenBlocks(t, tn, seen)
	at := new(big.Int).SetUint64(blocks) // the cheats were sealed midway
	got, err := tn.std.BalanceAt(ctx, rich, at)
	if err != nil {
		t.Fatalf("balance at block %d after kill -9: %v", blocks, err)
	}
	if got.Cmp(balance) != 0 {
		t.Fatalf("balance %s at block %d after kill -9, want anvil_setBalance's %s", got, blocks, balance)
	}
	gotCode, err := tn.std.CodeAt(ctx, coded, at)
	if err != nil {
		t.Fatalf("code at block %d after kill -9: %v", blocks, err)
	}
	if !bytes.Equal(gotCode, code) {
		t.Fatalf("code %x at block %d after kill -9, want anvil_setCode's %x", gotCode, blocks, code)
	}
}
