package main

import (
	"bufio"
	"context"
	"errors"
	"math/big"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
	gethrpc "github.com/ethereum/go-ethereum/rpc"
)

// Fork mode against anvil (Foundry) as the upstream: the chain most fork users fork is served
// by a node that is not flashrpc. anvil comes from npm, pinned in scripts/fork/package.json
// and installed by `npm ci --prefix scripts/fork` (.ci/run does it before the tests).

// anvilBin returns the pinned anvil binary; without it the test skips, or under CI fails.
func anvilBin(t *testing.T) string {
	t.Helper()
	bin, err := filepath.Abs("../../scripts/fork/node_modules/@foundry-rs/anvil-linux-amd64/bin/anvil")
	if err == nil {
		if _, err = os.Stat(bin); err == nil {
			return bin
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatalf("anvil is not installed (%v): .ci/run installs it with npm ci --prefix scripts/fork", err)
	}
	t.Skip("anvil is not installed: run npm ci --prefix scripts/fork")
	return ""
}

// startAnvil runs anvil (chain 31337, the test mnemonic's accounts) on a free loopback port
// and returns its URL.
func startAnvil(t *testing.T, args ...string) string {
	t.Helper()
	bin := anvilBin(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	cmd := exec.Command(bin, append([]string{"--port", strconv.Itoa(port), "--accounts", "3"}, args...)...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	listening := regexp.MustCompile(`Listening on`)
	ready := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if listening.MatchString(sc.Text()) {
				close(ready)
				break
			}
		}
		for sc.Scan() {
		}
	}()
	select {
	case <-ready:
	case <-time.After(60 * time.Second):
		t.Fatal("anvil did not start")
	}
	return "http://127.0.0.1:" + strconv.Itoa(port)
}

// TestForkAnvil forks anvil at a block N after deploying the store contract and changing its
// storage, changes anvil's state after N, and checks that the fork serves anvil's state at N,
// anvil's blocks and transactions up to N and none after, eth_getLogs across N, and local
// transactions on top.
func TestForkAnvil(t *testing.T) {
	ctx := context.Background()
	url := startAnvil(t)
	raw, err := gethrpc.Dial(url)
	if err != nil {
		t.Fatal(err)
	}
	up := ethclient.NewClient(raw)
	defer up.Close()
	keys := testOptionsAccounts(t) // anvil's accounts come from the same test mnemonic
	chainID := big.NewInt(31337)
	var nonce uint64
	send := func(to *common.Address, data []byte) *types.Transaction {
		t.Helper()
		tx := signTx(t, keys[1], chainID, nonce, to, new(big.Int), 300_000, data)
		nonce++
		if err := up.SendTransaction(ctx, tx); err != nil {
			t.Fatal(err)
		}
		for { // anvil mines it at once, in a block of its own; wait until it is there
			if _, err := up.TransactionReceipt(ctx, tx.Hash()); err == nil {
				return tx
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	deploy := send(nil, initCode(storeRuntime)) // anvil mines each transaction in a block
	store := crypto.CreateAddress(addressOf(keys[1]), 0)
	for i := int64(0); i < 5; i++ {
		send(&store, setData(i, 100+i))
	}
	n, err := up.BlockNumber(ctx)
	if err != nil {
		t.Fatal(err)
	}
	after := send(&store, setData(0, 999)) // after the fork block
	upN, err := up.HeaderByNumber(ctx, new(big.Int).SetUint64(n))
	if err != nil {
		t.Fatal(err)
	}

	o := testOptions(t.TempDir())
	o.fork.url = url
	o.fork.block = optionalInt{v: int64(n), set: true}
	tn := startTestNode(t, o)
	send(&store, setData(1, 555)) // anvil moves on after the fork was made: still pinned

	if id, err := tn.std.ChainID(ctx); err != nil || id.Cmp(chainID) != 0 {
		t.Fatalf("chain id %v %v, want anvil's 31337", id, err)
	}
	head, err := tn.std.HeaderByNumber(ctx, nil)
	if err != nil || head.Number.Uint64() != n+1 || head.ParentHash != upN.Hash() {
		t.Fatalf("head %v (parent %s), want block %d on anvil's block %d %s: %v", head.Number, head.ParentHash, n+1, n, upN.Hash(), err)
	}
	if h, err := tn.std.HeaderByNumber(ctx, new(big.Int).SetUint64(n-1)); err != nil || h.Number.Uint64() != n-1 {
		t.Fatalf("anvil's block %d: %v %v", n-1, h, err)
	}
	for slot, want := range map[int64]int64{0: 100, 1: 101, 4: 104, 8: 0} {
		if got := callStore(t, tn.stdRaw, store, slot, "latest"); got.Int64() != want {
			t.Fatalf("slot %d = %d, want anvil's %d at block %d", slot, got, want, n)
		}
	}
	if r, err := tn.std.TransactionReceipt(ctx, deploy.Hash()); err != nil || r.ContractAddress != store {
		t.Fatalf("the deployment's receipt: %+v %v", r, err)
	}
	if _, _, err := tn.std.TransactionByHash(ctx, after.Hash()); !errors.Is(err, ethereum.NotFound) {
		t.Fatalf("anvil's transaction after the fork: %v, want not found", err)
	}

	s := &sender{key: keys[0]}
	s.send(t, tn, &store, new(big.Int), setData(2, 0))
	tn.preconfirm(t)
	tn.seal(t)
	if got := callStore(t, tn.stdRaw, store, 2, "latest"); got.Sign() != 0 {
		t.Fatalf("slot 2 after a local write = %d, want 0", got)
	}
	logs, err := tn.std.FilterLogs(ctx, ethereum.FilterQuery{FromBlock: big.NewInt(0), Addresses: []common.Address{store}})
	if err != nil {
		t.Fatal(err)
	}
	if len(logs) != 6 || logs[4].BlockNumber != n || logs[5].BlockNumber != n+2 {
		t.Fatalf("%d logs across the fork block, want 5 of anvil's (the last in block %d) and 1 local in %d: %+v", len(logs), n, n+2, logs)
	}
}
