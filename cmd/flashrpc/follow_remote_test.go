package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"math/big"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"

	"github.com/flashrpc/flashrpc/internal/flashblocks"
	"github.com/flashrpc/flashrpc/internal/fork"
	"github.com/flashrpc/flashrpc/internal/node"
)

// storeInit is hand-assembled init code that stores 42 in slot 0 and whose runtime returns
// slot 0:
//
//	init:    PUSH1 42 PUSH1 0 SSTORE PUSH1 11 PUSH1 17 PUSH1 0 CODECOPY PUSH1 11 PUSH1 0 RETURN  (17 bytes)
//	runtime: PUSH1 0 SLOAD PUSH1 0 MSTORE PUSH1 32 PUSH1 0 RETURN                             (11 bytes)
var storeInit = common.FromHex("602a600055600b60116000396" + "00b6000f3" + "60005460005260206000f3")

// remoteReplicaOptions returns the options of a replica of tn on the upstream's state
// (--state remote, no genesis), reading its feed through feedURL.
func remoteReplicaOptions(tn *testNode, dataDir, feedURL string) *followOptions {
	o := replicaOptions(tn, dataDir)
	o.state, o.genesis, o.feedURL = "remote", "", feedURL
	return o
}

// TestFollowRemoteState runs a primary dev chain with some blocks and state, and a replica
// started without its genesis (--state remote) behind a relay of the feed: its state at
// latest (balances, nonces, code, storage, eth_call) is the primary's, and so are its sealed
// blocks, receipts and logs, before and after it started; its pending block and a
// pre-confirmed receipt are the primary's pre-confirmation byte for byte; it follows new
// blocks; a flashblock whose transaction the relay replaced, or whose state root it changed,
// never reaches its pending block.
func TestFollowRemoteState(t *testing.T) {
	ctx := context.Background()
	tn := startTestNode(t, testOptions(t.TempDir()))
	keys := testOptionsAccounts(t)
	chainID := tn.Chain().Config().ChainID
	recipient := common.HexToAddress("0x00000000000000000000000000000000000c0ffe")
	from := addressOf(keys[0])
	emitter, store := crypto.CreateAddress(from, 0), crypto.CreateAddress(from, 1)
	nonce := uint64(0)
	sign := func(to *common.Address, data []byte, gas uint64) *types.Transaction {
		tx := signTx(t, keys[0], chainID, nonce, to, big.NewInt(1), gas, data)
		nonce++
		return tx
	}
	send := func(tx *types.Transaction) *types.Transaction {
		if err := tn.pre.SendTransaction(ctx, tx); err != nil {
			t.Fatalf("send: %v", err)
		}
		return tx
	}
	// Blocks and state before the replica starts: it forks the upstream's head.
	txs := []*types.Transaction{send(sign(nil, logInit, 200_000)), send(sign(nil, storeInit, 200_000))}
	tn.preconfirm(t)
	tn.seal(t)
	txs = append(txs, send(sign(&emitter, nil, 100_000)), send(sign(&recipient, nil, params.TxGas)))
	tn.preconfirm(t)
	tn.seal(t)

	rl := startRelay(t, tn.Feed().URL)
	dataDir := t.TempDir()
	r := startTestReplica(t, remoteReplicaOptions(tn, dataDir, rl.url()))
	if fork.Of(r.Chain()) == nil || !fork.Of(r.Chain()).Replica() {
		t.Fatal("the replica's chain is not a remote-state replica")
	}
	waitFor(t, "the replica at the primary's head", func() bool { return r.head() == tn.Chain().Head().Number.Uint64() })
	sameState := func() {
		t.Helper()
		for _, addr := range []common.Address{from, recipient, emitter, store} {
			sameJSON(t, tn.stdRaw, r.stdRaw, "eth_getBalance", addr, "latest")
			sameJSON(t, tn.stdRaw, r.stdRaw, "eth_getTransactionCount", addr, "latest")
			sameJSON(t, tn.stdRaw, r.stdRaw, "eth_getCode", addr, "latest")
		}
		got := sameJSON(t, tn.stdRaw, r.stdRaw, "eth_getStorageAt", store, "0x0", "latest")
		if common.HexToHash(string(bytes.Trim(got, `"`))) != common.BigToHash(big.NewInt(42)) {
			t.Fatalf("slot 0 of the store contract: %s", got)
		}
		sameJSON(t, tn.stdRaw, r.stdRaw, "eth_call", map[string]any{"to": store}, "latest")
	}
	sameState()

	// Pre-confirmations while it follows: the replica's pending block is the primary's,
	// re-executed on the upstream's state with the sequencer's state root.
	txs = append(txs, send(sign(&emitter, nil, 100_000)))
	tn.preconfirm(t)
	r.waitInStep(t, tn.preRaw, true, "the pre-confirmation on the replica")
	last := txs[len(txs)-1].Hash()
	sameJSON(t, tn.preRaw, r.preRaw, "eth_getTransactionReceipt", last)
	sameJSON(t, tn.preRaw, r.preRaw, "eth_getBalance", from, "pending")
	txs = append(txs, send(sign(&recipient, nil, params.TxGas)))
	tn.preconfirm(t)
	r.waitInStep(t, tn.preRaw, true, "the second pre-confirmation on the replica")

	// New blocks are followed, and the state at latest moves with them.
	tn.seal(t)
	txs = append(txs, send(sign(&recipient, nil, params.TxGas)))
	tn.preconfirm(t)
	r.waitInStep(t, tn.preRaw, true, "a pre-confirmation of the next block")
	tn.seal(t)
	waitFor(t, "the replica at the primary's new head", func() bool { return r.head() == tn.Chain().Head().Number.Uint64() })
	sameState()

	// A flashblock whose transaction the relay replaced (the block hash kept): refused.
	replaced := signTx(t, keys[1], chainID, 0, &recipient, big.NewInt(1_000_000), params.TxGas, nil)
	enc, err := replaced.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	rl.once(func(p *flashblocks.Payload) *flashblocks.Payload {
		p.Diff.Transactions[len(p.Diff.Transactions)-1] = hexutil.Bytes(enc)
		return p
	})
	send(sign(&recipient, nil, params.TxGas))
	tn.preconfirm(t)
	r.waitFellBack(t, "the fall-back after a replaced transaction")
	r.wantAbsent(t, replaced.Hash())
	tn.seal(t)
	txs = append(txs, send(sign(&recipient, nil, params.TxGas)))
	tn.preconfirm(t)
	r.waitInStep(t, tn.preRaw, true, "back in step after the replaced transaction")

	// A flashblock whose state root the relay changed (the rest kept): the root is bound by
	// the block hash, so it is refused too.
	rl.once(func(p *flashblocks.Payload) *flashblocks.Payload {
		p.Diff.StateRoot[0] ^= 1
		return p
	})
	moved := send(sign(&recipient, nil, params.TxGas))
	tn.preconfirm(t)
	r.waitFellBack(t, "the fall-back after a changed state root")
	r.wantAbsent(t, moved.Hash())
	tn.seal(t)
	send(sign(&recipient, nil, params.TxGas))
	tn.preconfirm(t)
	r.waitInStep(t, tn.preRaw, true, "back in step after the changed state root")
	tn.seal(t)

	// Everything sealed is the primary's, blocks before and after the replica started.
	head := tn.Chain().Head().Number.Uint64()
	waitFor(t, "the replica at the primary's last head", func() bool { return r.head() == head })
	for n := uint64(0); n <= head; n++ {
		sameJSON(t, tn.stdRaw, r.stdRaw, "eth_getBlockByNumber", hexutil.Uint64(n), true)
		sameJSON(t, tn.stdRaw, r.stdRaw, "eth_getBlockReceipts", hexutil.Uint64(n))
	}
	for _, tx := range txs {
		sameJSON(t, tn.stdRaw, r.stdRaw, "eth_getTransactionReceipt", tx.Hash())
		sameJSON(t, tn.stdRaw, r.stdRaw, "eth_getTransactionByHash", tx.Hash())
	}
	logs := sameJSON(t, tn.stdRaw, r.stdRaw, "eth_getLogs", map[string]any{"fromBlock": "0x0", "toBlock": "latest"})
	if bytes.Count(logs, []byte(logTopic.Hex())) < 2 {
		t.Fatalf("want logs before and after the replica started: %s", logs)
	}
	sameState()
	var proof json.RawMessage
	if err := r.stdRaw.Call(&proof, "eth_getProof", store, []string{}, "latest"); err == nil || !strings.Contains(err.Error(), "remote-state replica") {
		t.Fatalf("eth_getProof at the head of a remote-state replica: %s, %v; want it refused", proof, err)
	}

	// A restart on the datadir resumes the replica, and it catches up with a block it missed.
	r.stop()
	txs = append(txs, send(sign(&emitter, nil, 100_000)))
	tn.preconfirm(t)
	tn.seal(t)
	r = startTestReplica(t, remoteReplicaOptions(tn, dataDir, rl.url()))
	head = tn.Chain().Head().Number.Uint64()
	waitFor(t, "the restarted replica at the primary's head", func() bool { return r.head() == head })
	sameJSON(t, tn.stdRaw, r.stdRaw, "eth_getBlockByNumber", hexutil.Uint64(head), true)
	sameJSON(t, tn.stdRaw, r.stdRaw, "eth_getTransactionReceipt", txs[len(txs)-1].Hash())
	sameState()
}

// TestFollowStateFlags refuses --state values and datadirs that cannot work, before anything
// starts, with a message that says what to change.
func TestFollowStateFlags(t *testing.T) {
	tn := startTestNode(t, testOptions(t.TempDir()))
	remoteDir, localDir := t.TempDir(), t.TempDir()
	r := startTestReplica(t, remoteReplicaOptions(tn, remoteDir, ""))
	r.stop()
	l := startTestReplica(t, replicaOptions(tn, localDir))
	l.stop()
	genesis := filepath.Join(tn.Chain().DataDir(), node.GenesisFileName)
	tests := []struct {
		name    string
		args    []string
		wantErr string // "" : a usage error (the reason printed on stderr)
	}{
		{"unknown state", []string{"--state", "archive"}, ""},
		{"genesis with remote state", []string{"--state", "remote", "--genesis", genesis}, ""},
		{"no genesis for local state", []string{"--datadir", t.TempDir()}, "--state remote"},
		{"local state on a remote replica's datadir", []string{"--datadir", remoteDir}, "--state remote for a remote-state replica"},
		{"remote state on a local replica's datadir", []string{"--datadir", localDir, "--state", "remote"}, "not a fork"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"--upstream", tn.stdURL, "--http.port", "0", "--preconf.port", "0", "--feed.port", "0"}, tt.args...)
			err := runFollow(args, io.Discard, io.Discard)
			switch {
			case tt.wantErr == "" && !errors.Is(err, errUsage):
				t.Fatalf("error %v, want the usage error", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Fatalf("error %v, want one containing %q", err, tt.wantErr)
			}
		})
	}
	t.Run("dev on a remote replica's datadir", func(t *testing.T) {
		err := runDev([]string{"--datadir", remoteDir, "--http.port", "0", "--preconf.port", "0", "--feed.port", "0"}, io.Discard, io.Discard)
		if err == nil || !strings.Contains(err.Error(), "remote-state replica") {
			t.Fatalf("error %v, want the datadir refused as a remote-state replica's", err)
		}
	})
}

// TestFollowRemoteStateFromGenesis starts a remote-state replica of a primary that has sealed
// nothing yet: block 0 carries no L1-attributes deposit, and the replica tells the OP Stack
// rules from the upstream's L1Block predeploy; its pre-confirmations and blocks are then the
// primary's.
func TestFollowRemoteStateFromGenesis(t *testing.T) {
	ctx := context.Background()
	tn := startTestNode(t, testOptions(t.TempDir()))
	o := remoteReplicaOptions(tn, t.TempDir(), tn.Feed().URL)
	o.metricsPort = optionalPort{port: 0, set: true}
	r := startTestReplica(t, o)
	if fork.Of(r.Chain()).Number() != 0 || !r.Chain().Config().IsOptimism() {
		t.Fatalf("replica forked block %d, OP Stack rules %v; want block 0 and OP Stack rules", fork.Of(r.Chain()).Number(), r.Chain().Config().IsOptimism())
	}
	keys := testOptionsAccounts(t)
	tx := signTx(t, keys[3], tn.Chain().Config().ChainID, 0, &common.Address{0xc0}, big.NewInt(7), params.TxGas, nil)
	if err := tn.pre.SendTransaction(ctx, tx); err != nil {
		t.Fatal(err)
	}
	tn.preconfirm(t)
	want := rawCall(t, tn.preRaw, "eth_getBlockByNumber", "pending", true)
	waitFor(t, "the pre-confirmation on the replica", func() bool {
		return bytes.Equal(rawCall(t, r.preRaw, "eth_getBlockByNumber", "pending", true), want)
	})
	tn.seal(t)
	waitFor(t, "block 1 on the replica", func() bool { return r.head() == 1 })
	sameJSON(t, tn.stdRaw, r.stdRaw, "eth_getBlockByNumber", "0x1", true)
	sameJSON(t, tn.stdRaw, r.stdRaw, "eth_getTransactionReceipt", tx.Hash())
	sameJSON(t, tn.stdRaw, r.stdRaw, "eth_getBalance", common.Address{0xc0}, "latest")
	// The upstream state reads are in the replica's metrics.
	res, err := http.Get(r.MetricsURL())
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(res.Body)
	res.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(body, []byte(`flashrpc_upstream_requests_total{method="eth_getBalance"}`)) {
		t.Fatalf("no upstream state reads in the metrics:\n%s", body)
	}
}

// TestFollowRemoteStateReorg has a remote-state replica follow chain A from its genesis, then
// its upstream switch to chain B, which shares only the genesis with A and is longer: the
// replica rewinds to the genesis (its fork block), tells its log subscribers that A's log is
// removed, and serves B's blocks, receipts and state.
func TestFollowRemoteStateReorg(t *testing.T) {
	ctx := context.Background()
	a := startTestNode(t, testOptions(t.TempDir()))
	b := startTestNode(t, testOptions(t.TempDir()))
	keys := testOptionsAccounts(t)
	chainID := a.Chain().Config().ChainID
	proxy, switchTo := switchProxy(t, a.stdURL)
	o := remoteReplicaOptions(a, t.TempDir(), "")
	o.upstream, o.upstreamWS = proxy.URL, "off"
	r := startTestReplica(t, o)

	contract := crypto.CreateAddress(addressOf(keys[0]), 0)
	for i, tx := range []*types.Transaction{
		signTx(t, keys[0], chainID, 0, nil, new(big.Int), 200_000, logInit),
		signTx(t, keys[0], chainID, 1, &contract, new(big.Int), 100_000, nil),
	} {
		if err := a.pre.SendTransaction(ctx, tx); err != nil {
			t.Fatalf("A tx %d: %v", i, err)
		}
		a.preconfirm(t)
		a.seal(t)
	}
	waitFor(t, "the replica on chain A", func() bool { return r.head() == 2 })
	logs, subErr := subscribeLogs(t, r.stdURL)

	recipient := common.HexToAddress("0x00000000000000000000000000000000000c0ffe")
	var bTxs []*types.Transaction
	for i := range 3 {
		tx := signTx(t, keys[1], chainID, uint64(i), &recipient, big.NewInt(1), params.TxGas, nil)
		if err := b.pre.SendTransaction(ctx, tx); err != nil {
			t.Fatalf("B tx %d: %v", i, err)
		}
		bTxs = append(bTxs, tx)
		b.preconfirm(t)
		b.seal(t)
	}
	switchTo(b.stdURL)
	waitFor(t, "the replica on chain B", func() bool { return r.head() == 3 && r.Chain().CanonicalHash(3) == b.Chain().CanonicalHash(3) })
	for n := uint64(0); n <= 3; n++ {
		sameJSON(t, b.stdRaw, r.stdRaw, "eth_getBlockByNumber", hexutil.Uint64(n), true)
	}
	for _, tx := range bTxs {
		sameJSON(t, b.stdRaw, r.stdRaw, "eth_getTransactionReceipt", tx.Hash())
	}
	sameJSON(t, b.stdRaw, r.stdRaw, "eth_getLogs", map[string]any{"fromBlock": "0x0", "toBlock": "latest"})
	sameJSON(t, b.stdRaw, r.stdRaw, "eth_getCode", contract, "latest")
	sameJSON(t, b.stdRaw, r.stdRaw, "eth_getBalance", recipient, "latest")
	select {
	case l := <-logs:
		if !l.Removed || l.Address != contract || l.Topics[0] != logTopic {
			t.Fatalf("log after the reorg: %+v, want chain A's log removed", l)
		}
	case err := <-subErr:
		t.Fatal(err)
	case <-time.After(10 * time.Second):
		t.Fatal("no removed log after the reorg")
	}
}
