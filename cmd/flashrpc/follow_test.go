package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/params"
	gethrpc "github.com/ethereum/go-ethereum/rpc"

	"github.com/flashrpc/flashrpc/internal/node"
)

// testReplica is a replica (flashrpc follow) on loopback ports 0, with clients for both
// endpoints.
type testReplica struct {
	*node.Follow
	std, pre       *ethclient.Client
	stdRaw, preRaw *gethrpc.Client
	stdURL, preURL string
}

// replicaOptions returns the options of a replica of tn, with its genesis file, polling the
// upstream every 20 ms.
func replicaOptions(tn *testNode, dataDir string) *followOptions {
	_, o := followFlags(io.Discard)
	o.DataDir = dataDir
	o.HTTPPort, o.PreconfPort, o.feed.Port = 0, 0, 0
	o.upstream = tn.stdURL
	if tn.Feed() != nil {
		o.feedURL = tn.Feed().URL
	}
	o.genesis = filepath.Join(tn.Chain().DataDir(), node.GenesisFileName)
	o.poll = 20 * time.Millisecond
	return o
}

// startFollow starts a replica of the options, as runFollow does.
func startFollow(o *followOptions, logger *slog.Logger) (*node.Follow, error) {
	return node.StartFollow(o.config(logger))
}

func startTestReplica(t *testing.T, o *followOptions) *testReplica {
	t.Helper()
	logger := slog.New(slog.DiscardHandler)
	if os.Getenv("FLASHRPC_TEST_LOG") != "" {
		logger = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	n, err := startFollow(o, logger)
	if err != nil {
		t.Fatal(err)
	}
	n.Endpoints().Serve()
	r := &testReplica{Follow: n, stdURL: n.Endpoints()[0].URL(), preURL: n.Endpoints()[1].URL()}
	if r.stdRaw, err = gethrpc.Dial(r.stdURL); err != nil {
		t.Fatal(err)
	}
	if r.preRaw, err = gethrpc.Dial(r.preURL); err != nil {
		t.Fatal(err)
	}
	r.std, r.pre = ethclient.NewClient(r.stdRaw), ethclient.NewClient(r.preRaw)
	t.Cleanup(r.stop)
	return r
}

func (r *testReplica) stop() {
	if r.Follow == nil {
		return
	}
	r.std.Close()
	r.pre.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	r.Endpoints().Shutdown(ctx)
	r.Close()
	r.Follow = nil
}

// waitFor polls cond until it holds; the bound only keeps a broken build from hanging (the
// test asserts what happens, not how fast).
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// rawCall returns a call's raw JSON result.
func rawCall(t *testing.T, c *gethrpc.Client, method string, args ...any) json.RawMessage {
	t.Helper()
	var res json.RawMessage
	if err := c.Call(&res, method, args...); err != nil {
		t.Fatalf("%s%v: %v", method, args, err)
	}
	return res
}

// sameJSON fails unless a and b answer method(args) with the same bytes.
func sameJSON(t *testing.T, a, b *gethrpc.Client, method string, args ...any) json.RawMessage {
	t.Helper()
	ra, rb := rawCall(t, a, method, args...), rawCall(t, b, method, args...)
	if !bytes.Equal(ra, rb) {
		t.Fatalf("%s%v differs:\nprimary %s\nreplica %s", method, args, ra, rb)
	}
	return ra
}

// head is the replica's sealed head as its API serves it (the published Heads; the chain's
// own head moves a moment before them).
func (r *testReplica) head() uint64 { return r.Chain().Heads().Latest.Number.Uint64() }

// TestFollowSealedAndPending runs a primary dev chain (sealing on request) and a replica of it:
// the replica catches up from genesis, then follows; its sealed blocks, receipts, state and
// logs are byte for byte the primary's, its pending block is the primary's current
// pre-confirmation, and a transaction sent to the replica is forwarded to the primary.
func TestFollowSealedAndPending(t *testing.T) {
	ctx := context.Background()
	tn := startTestNode(t, testOptions(t.TempDir()))
	keys := testOptionsAccounts(t)
	chainID := tn.Chain().Config().ChainID
	recipient := common.HexToAddress("0x00000000000000000000000000000000000c0ffe")
	from := addressOf(keys[0])
	contract := crypto.CreateAddress(from, 0)
	nonce := uint64(0)
	send := func(c *ethclient.Client, to *common.Address, data []byte, gas uint64) *types.Transaction {
		tx := signTx(t, keys[0], chainID, nonce, to, big.NewInt(1), gas, data)
		nonce++
		if err := c.SendTransaction(ctx, tx); err != nil {
			t.Fatalf("send: %v", err)
		}
		return tx
	}
	// Blocks before the replica starts: it catches up from genesis.
	var txs []*types.Transaction
	txs = append(txs, send(tn.pre, nil, logInit, 200_000))
	tn.preconfirm(t)
	tn.seal(t)
	for i := 0; i < 3; i++ {
		txs = append(txs, send(tn.pre, &contract, nil, 100_000), send(tn.pre, &recipient, nil, params.TxGas))
		tn.preconfirm(t)
		tn.seal(t)
	}
	r := startTestReplica(t, replicaOptions(tn, t.TempDir()))
	waitFor(t, "catch-up", func() bool { return r.head() == tn.Chain().Head().Number.Uint64() })

	// Blocks while it follows; one of its transactions sent through the replica.
	txs = append(txs, send(r.pre, &contract, nil, 100_000))
	waitFor(t, "the forwarded transaction in the primary's pool", func() bool {
		_, pending, err := tn.pre.TransactionByHash(ctx, txs[len(txs)-1].Hash())
		return err == nil && pending
	})
	tn.preconfirm(t)
	// The replica's pending block is the primary's pre-confirmation, byte for byte.
	want := rawCall(t, tn.preRaw, "eth_getBlockByNumber", "pending", true)
	waitFor(t, "the pre-confirmation on the replica", func() bool {
		return bytes.Equal(rawCall(t, r.preRaw, "eth_getBlockByNumber", "pending", true), want)
	})
	last := txs[len(txs)-1].Hash()
	sameJSON(t, tn.preRaw, r.preRaw, "eth_getTransactionReceipt", last)
	sameJSON(t, tn.preRaw, r.preRaw, "eth_getBalance", recipient, "pending")
	tn.seal(t)
	txs = append(txs, send(tn.pre, &recipient, nil, params.TxGas))
	tn.preconfirm(t)
	tn.seal(t)
	head := tn.Chain().Head().Number.Uint64()
	waitFor(t, "the replica at the primary's head", func() bool { return r.head() == head })

	for n := uint64(0); n <= head; n++ {
		sameJSON(t, tn.stdRaw, r.stdRaw, "eth_getBlockByNumber", hexutil.Uint64(n), true)
	}
	for _, tx := range txs {
		sameJSON(t, tn.stdRaw, r.stdRaw, "eth_getTransactionReceipt", tx.Hash())
		sameJSON(t, tn.stdRaw, r.stdRaw, "eth_getTransactionByHash", tx.Hash())
	}
	for _, addr := range []common.Address{from, recipient, contract} {
		sameJSON(t, tn.stdRaw, r.stdRaw, "eth_getBalance", addr, "latest")
		sameJSON(t, tn.stdRaw, r.stdRaw, "eth_getTransactionCount", addr, "latest")
		sameJSON(t, tn.stdRaw, r.stdRaw, "eth_getCode", addr, "latest")
	}
	logs := sameJSON(t, tn.stdRaw, r.stdRaw, "eth_getLogs", map[string]any{"fromBlock": "0x0", "toBlock": "latest"})
	if !bytes.Contains(logs, []byte(logTopic.Hex())) {
		t.Fatalf("no logs to compare: %s", logs)
	}
}

// TestFollowChainOfReplicas has a replica follow another replica (its sealed blocks and its
// republished feed), and sends eth_sendRawTransactionSync to the second: it is forwarded twice
// to the primary, and the answer is the pre-confirmed receipt, the primary's byte for byte.
func TestFollowChainOfReplicas(t *testing.T) {
	ctx := context.Background()
	tn := startTestNode(t, testOptions(t.TempDir()))
	r1 := startTestReplica(t, replicaOptions(tn, t.TempDir()))
	o := replicaOptions(tn, t.TempDir())
	o.upstream, o.feedURL = r1.stdURL, r1.Feed().URL
	r2 := startTestReplica(t, o)
	keys := testOptionsAccounts(t)
	tx := signTx(t, keys[2], tn.Chain().Config().ChainID, 0, &common.Address{0xc0}, big.NewInt(7), params.TxGas, nil)
	raw, err := tx.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	type answer struct {
		receipt json.RawMessage
		err     error
	}
	done := make(chan answer, 1)
	go func() {
		var a answer
		a.err = r2.preRaw.CallContext(ctx, &a.receipt, "eth_sendRawTransactionSync", hexutil.Bytes(raw))
		done <- a
	}()
	waitFor(t, "the transaction in the primary's pool", func() bool {
		_, pending, err := tn.pre.TransactionByHash(ctx, tx.Hash())
		return err == nil && pending
	})
	tn.preconfirm(t)
	a := <-done
	if a.err != nil {
		t.Fatalf("eth_sendRawTransactionSync through two replicas: %v", a.err)
	}
	if want := rawCall(t, tn.preRaw, "eth_getTransactionReceipt", tx.Hash()); !bytes.Equal(a.receipt, want) {
		t.Fatalf("receipt through two replicas:\n%s\nprimary's:\n%s", a.receipt, want)
	}
	tn.seal(t)
	waitFor(t, "the second replica at the primary's head", func() bool { return r2.head() == tn.Chain().Head().Number.Uint64() })
	sameJSON(t, tn.stdRaw, r2.stdRaw, "eth_getTransactionReceipt", tx.Hash())
	// A transaction the primary refuses: its error comes back through both replicas.
	var res json.RawMessage
	err = r2.preRaw.CallContext(ctx, &res, "eth_sendRawTransaction", hexutil.Bytes(raw))
	var want json.RawMessage
	werr := tn.preRaw.CallContext(ctx, &want, "eth_sendRawTransaction", hexutil.Bytes(raw))
	if err == nil || werr == nil || err.Error() != werr.Error() || err.(gethrpc.Error).ErrorCode() != werr.(gethrpc.Error).ErrorCode() {
		t.Fatalf("replayed transaction through two replicas: %v, the primary: %v", err, werr)
	}
}

// waitInStep waits for the replica's pending block to be primary's (full: with the
// transactions' objects, else their hashes).
func (r *testReplica) waitInStep(t *testing.T, primary *gethrpc.Client, full bool, what string) {
	t.Helper()
	want := rawCall(t, primary, "eth_getBlockByNumber", "pending", full)
	waitFor(t, what, func() bool {
		return bytes.Equal(rawCall(t, r.preRaw, "eth_getBlockByNumber", "pending", full), want)
	})
}

// waitFellBack waits for the replica's pending block to be its sealed head.
func (r *testReplica) waitFellBack(t *testing.T, what string) {
	t.Helper()
	waitFor(t, what, func() bool {
		pending := rawCall(t, r.preRaw, "eth_getBlockByNumber", "pending", false)
		latest := rawCall(t, r.preRaw, "eth_getBlockByNumber", "latest", false)
		return bytes.Equal(pending, latest)
	})
}

// wantAbsent fails if the replica serves the transaction, pre-confirmed or sealed.
func (r *testReplica) wantAbsent(t *testing.T, tx common.Hash) {
	t.Helper()
	if res := rawCall(t, r.preRaw, "eth_getTransactionByHash", tx); string(res) != "null" {
		t.Fatalf("the replica serves %s: %s", tx, res)
	}
}

// subscribeLogs subscribes to every log over the WebSocket of the endpoint at httpURL: the logs
// and the subscription's error channel; the subscription ends with the test.
func subscribeLogs(t *testing.T, httpURL string) (<-chan types.Log, <-chan error) {
	t.Helper()
	ws, err := ethclient.Dial("ws" + strings.TrimPrefix(httpURL, "http"))
	if err != nil {
		t.Fatal(err)
	}
	logs := make(chan types.Log, 16)
	sub, err := ws.SubscribeFilterLogs(context.Background(), ethereum.FilterQuery{}, logs)
	if err != nil {
		ws.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() { sub.Unsubscribe(); ws.Close() })
	return logs, sub.Err()
}
