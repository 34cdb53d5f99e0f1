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

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/params"
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
	chainID := a.chain.Config().ChainID
	if a.chain.Genesis().Hash() != b.chain.Genesis().Hash() {
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
			return r.head() == 2 && r.chain.CanonicalHash(1) == b.chain.CanonicalHash(1)
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
	ws, err := ethclient.Dial("ws" + strings.TrimPrefix(r.stdURL, "http"))
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	logs := make(chan types.Log, 16)
	sub, err := ws.SubscribeFilterLogs(ctx, ethereum.FilterQuery{}, logs)
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Unsubscribe()
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
	case err := <-sub.Err():
		t.Fatal(err)
	case <-time.After(10 * time.Second):
		t.Fatal("no removed log after the reorg")
	}

}
