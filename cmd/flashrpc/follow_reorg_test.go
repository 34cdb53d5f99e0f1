package main

import (
	"context"
	"math/big"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"
	gethrpc "github.com/ethereum/go-ethereum/rpc"
)

// switchProxy forwards JSON-RPC to one of several upstreams, switchable at any time: the
// replica's upstream reorganises from one chain to another.
func switchProxy(t *testing.T, first string) (*httptest.Server, func(string)) {
	t.Helper()
	var target atomic.Pointer[url.URL]
	set := func(raw string) {
		u, err := url.Parse(raw)
		if err != nil {
			t.Fatal(err)
		}
		target.Store(u)
	}
	set(first)
	proxy := &httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) { r.SetURL(target.Load()) }}
	srv := httptest.NewServer(proxy)
	t.Cleanup(srv.Close)
	return srv, set
}

// TestFollowReorg has a replica follow chain A, then its upstream switch to chain B, which
// shares only the genesis with A and is longer: the replica rewinds to the genesis, tells its
// log subscribers that A's logs are removed, and serves B's blocks and logs.
func TestFollowReorg(t *testing.T) {
	ctx := context.Background()
	a := startTestNode(t, testOptions(t.TempDir()))
	b := startTestNode(t, testOptions(t.TempDir()))
	keys := testOptionsAccounts(t)
	chainID := a.Chain().Config().ChainID
	if a.Chain().Genesis().Hash() != b.Chain().Genesis().Hash() {
		t.Fatal("the two dev chains have different genesis blocks")
	}
	// A: block 1 deploys the log emitter, block 2 calls it.
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
	// B: blocks of transfers from another account.
	recipient := common.HexToAddress("0x00000000000000000000000000000000000c0ffe")
	sealB := func(i int) {
		if err := b.pre.SendTransaction(ctx, signTx(t, keys[1], chainID, uint64(i), &recipient, big.NewInt(1), params.TxGas, nil)); err != nil {
			t.Fatalf("B tx %d: %v", i, err)
		}
		b.preconfirm(t)
		b.seal(t)
	}
	sealB(0)
	sealB(1)

	t.Run("restart on the other chain", func(t *testing.T) {
		// A replica stopped on chain A and restarted with chain B's node as its upstream,
		// B as high as A: it compares the blocks it kept with the upstream's and rewinds
		// (nothing in B is above its head to reveal the fork).
		o := replicaOptions(a, t.TempDir())
		o.feedURL = ""
		r := startTestReplica(t, o)
		waitFor(t, "the replica on chain A", func() bool { return r.head() == 2 })
		r.stop()
		o.upstream = b.stdURL
		r = startTestReplica(t, o)
		waitFor(t, "the replica on chain B", func() bool {
			return r.head() == 2 && r.Chain().CanonicalHash(1) == b.Chain().CanonicalHash(1)
		})
		for n := uint64(1); n <= 2; n++ {
			sameJSON(t, b.stdRaw, r.stdRaw, "eth_getBlockByNumber", hexutil.Uint64(n), true)
		}
	})

	sealB(2) // B is longer than A from here on

	proxy, switchTo := switchProxy(t, a.stdURL)
	o := replicaOptions(a, t.TempDir())
	o.upstream, o.feedURL = proxy.URL, ""
	r := startTestReplica(t, o)
	waitFor(t, "the replica on chain A", func() bool { return r.head() == 2 })
	logs, subErr := subscribeLogs(t, r.stdURL)
	aLog := rawCall(t, r.stdRaw, "eth_getLogs", map[string]any{"fromBlock": "0x0", "toBlock": "latest"})
	if !strings.Contains(string(aLog), logTopic.Hex()) {
		t.Fatalf("chain A's log not on the replica: %s", aLog)
	}

	switchTo(b.stdURL)
	waitFor(t, "the replica on chain B", func() bool { return r.head() == 3 })
	for n := uint64(0); n <= 3; n++ {
		sameJSON(t, b.stdRaw, r.stdRaw, "eth_getBlockByNumber", hexutil.Uint64(n), true)
	}
	sameJSON(t, b.stdRaw, r.stdRaw, "eth_getLogs", map[string]any{"fromBlock": "0x0", "toBlock": "latest"})
	sameJSON(t, b.stdRaw, r.stdRaw, "eth_getCode", contract, "latest")
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

// TestFollowRetraction has the primary seal a block without a transaction it pre-confirmed
// (dev_seal with a chosen list): the replica, which pre-confirmed it from the feed, replaces
// its block in progress with the sealed block and tells its logs subscribers that the
// transaction's pre-confirmed log is removed (pendingLogs). It runs with local and with remote
// state (--state remote: the sealed block is inserted without execution, the retraction found
// by executing it on the upstream's state).
func TestFollowRetraction(t *testing.T) {
	for _, state := range []string{"local", "remote"} {
		t.Run("state="+state, func(t *testing.T) { testFollowRetraction(t, state) })
	}
}

func testFollowRetraction(t *testing.T, state string) {
	ctx := context.Background()
	tn := startTestNode(t, testOptions(t.TempDir()))
	o := replicaOptions(tn, t.TempDir())
	if state == "remote" {
		o = remoteReplicaOptions(tn, t.TempDir(), tn.Feed().URL)
	}
	r := startTestReplica(t, o)
	key := testOptionsAccounts(t)[0]
	chainID := tn.Chain().Config().ChainID
	contract := crypto.CreateAddress(addressOf(key), 0)
	if err := tn.pre.SendTransaction(ctx, signTx(t, key, chainID, 0, nil, new(big.Int), 200_000, logInit)); err != nil {
		t.Fatal(err)
	}
	tn.preconfirm(t)
	tn.seal(t)
	waitFor(t, "the contract on the replica", func() bool { return r.head() == 1 })

	ws, err := gethrpc.Dial("ws" + strings.TrimPrefix(r.preURL, "http"))
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	logs := make(chan types.Log, 16)
	sub, err := ws.EthSubscribe(ctx, logs, "pendingLogs", map[string]any{"address": contract})
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Unsubscribe()
	call := signTx(t, key, chainID, 1, &contract, new(big.Int), 100_000, nil)
	if err := tn.pre.SendTransaction(ctx, call); err != nil {
		t.Fatal(err)
	}
	tn.preconfirm(t)
	next := func(what string) types.Log {
		t.Helper()
		select {
		case l := <-logs:
			return l
		case err := <-sub.Err():
			t.Fatal(err)
		case <-time.After(30 * time.Second):
			t.Fatalf("no log: %s", what)
		}
		return types.Log{}
	}
	if l := next("the pre-confirmed log"); l.TxHash != call.Hash() || l.Removed {
		t.Fatalf("pre-confirmed log on the replica: %+v", l)
	}
	var res map[string]any
	if err := tn.stdRaw.Call(&res, "dev_seal", map[string]any{"transactions": []common.Hash{}}); err != nil {
		t.Fatalf("dev_seal without the call: %v", err)
	}
	if l := next("the retraction"); l.TxHash != call.Hash() || !l.Removed {
		t.Fatalf("after the primary sealed without the call: %+v, want its log removed", l)
	}
	waitFor(t, "the sealed block on the replica", func() bool { return r.head() == 2 })
	sameJSON(t, tn.stdRaw, r.stdRaw, "eth_getBlockByNumber", "0x2", true)
	if res := rawCall(t, r.preRaw, "eth_getTransactionReceipt", call.Hash()); string(res) != "null" {
		t.Fatalf("the dropped transaction's receipt on the replica: %s", res)
	}
}
