package remote_test

import (
	"context"
	"encoding/json"
	"math/big"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/rawdb"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/flashrpc/flashrpc/internal/api"
	"github.com/flashrpc/flashrpc/internal/chain"
	"github.com/flashrpc/flashrpc/internal/remote"
	"github.com/flashrpc/flashrpc/internal/rpc"
)

// upstream serves a dev chain with one contract holding slots 0..9 = 1..10, behind a proxy
// that counts requests and fails them while down is set.
type upstream struct {
	url      string
	requests atomic.Int64
	down     atomic.Bool
}

var contract = common.Address{0xc0}

func startUpstream(t *testing.T) *upstream {
	t.Helper()
	g := chain.DevGenesis(1337, []common.Address{{0xaa}})
	storage := map[common.Hash]common.Hash{}
	for i := int64(0); i < 10; i++ {
		storage[common.BigToHash(big.NewInt(i))] = common.BigToHash(big.NewInt(i + 1))
	}
	g.Alloc[contract] = types.Account{Code: []byte{0x60, 0x00, 0x54, 0x00}, Storage: storage, Nonce: 1}
	c, err := chain.Open(chain.Config{DataDir: t.TempDir(), Genesis: g})
	if err != nil {
		t.Fatal(err)
	}
	srv := rpc.NewServer(rpc.Config{}, api.New(api.Config{}, api.Backend{Chain: c}).Service())
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ln)
	u := &upstream{}
	target, _ := url.Parse("http://" + ln.Addr().String())
	rp := httputil.NewSingleHostReverseProxy(target)
	pln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	psrv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u.requests.Add(1)
		if u.down.Load() {
			http.Error(w, "down", http.StatusBadGateway)
			return
		}
		rp.ServeHTTP(w, r)
	})}
	go psrv.Serve(pln)
	t.Cleanup(func() {
		psrv.Close()
		srv.Shutdown(context.Background())
		c.Close()
	})
	u.url = "http://" + pln.Addr().String()
	return u
}

// TestStateCache reads accounts and slots of an upstream through a State with a store: one
// batch for everything a Fetch names, nothing again once cached (in another State on the same
// store too, as after a restart), and a failure that is returned, not cached.
func TestStateCache(t *testing.T) {
	t.Parallel()
	up := startUpstream(t)
	ctx := context.Background()
	store := rawdb.NewMemoryDatabase()
	client := remote.NewClient(remote.Config{URL: up.url, Retries: 1, Backoff: time.Millisecond})
	s := remote.NewState(remote.StateConfig{Client: client, Block: 0, Store: store})

	slots := []remote.SlotKey{{Addr: contract, Slot: common.BigToHash(big.NewInt(3))}, {Addr: contract, Slot: common.BigToHash(big.NewInt(20))}}
	if err := s.Fetch(ctx, []common.Address{contract, {0xaa}, {0xbb}}, slots); err != nil {
		t.Fatal(err)
	}
	if n := up.requests.Load(); n != 1 {
		t.Fatalf("Fetch of 3 accounts and 2 slots sent %d requests, want 1 batch", n)
	}
	check := func(s *remote.State) {
		t.Helper()
		a, err := s.Account(ctx, contract)
		if err != nil || a == nil || a.Nonce != 1 || common.BytesToHash(a.CodeHash) != crypto.Keccak256Hash([]byte{0x60, 0x00, 0x54, 0x00}) || a.Root != types.EmptyRootHash {
			t.Fatalf("contract account %+v %v", a, err)
		}
		if code := s.Code(common.BytesToHash(a.CodeHash)); len(code) != 4 {
			t.Fatalf("contract code %x", code)
		}
		if a, err := s.Account(ctx, common.Address{0xbb}); err != nil || a != nil {
			t.Fatalf("an account the upstream does not have: %+v %v, want nil", a, err)
		}
		if v, err := s.Storage(ctx, contract, common.BigToHash(big.NewInt(3))); err != nil || v != common.BigToHash(big.NewInt(4)) {
			t.Fatalf("slot 3 = %s %v, want 4", v, err)
		}
		if v, err := s.Storage(ctx, contract, common.BigToHash(big.NewInt(20))); err != nil || v != (common.Hash{}) {
			t.Fatalf("slot 20 = %s %v, want 0", v, err)
		}
	}
	check(s)
	check(remote.NewState(remote.StateConfig{Client: client, Block: 0, Store: store})) // a restart
	if n := up.requests.Load(); n != 1 {
		t.Fatalf("cached reads sent %d requests in all, want the first batch only", n)
	}

	up.down.Store(true)
	for range 2 {
		if _, err := s.Storage(ctx, contract, common.BigToHash(big.NewInt(5))); !remote.IsUpstream(err) {
			t.Fatalf("a read with the upstream down: %v, want an UpstreamError", err)
		}
	}
	up.down.Store(false)
	if v, err := s.Storage(ctx, contract, common.BigToHash(big.NewInt(5))); err != nil || v != common.BigToHash(big.NewInt(6)) {
		t.Fatalf("slot 5 after the upstream recovered = %s %v, want 6", v, err)
	}
}

// TestBlocksChecked reads a block and headers of the upstream, checked against their hashes.
func TestBlocksChecked(t *testing.T) {
	t.Parallel()
	up := startUpstream(t)
	ctx := context.Background()
	c := remote.NewClient(remote.Config{URL: up.url, Retries: 0})
	b, err := c.BlockByNumber(ctx, 0)
	if err != nil || b.NumberU64() != 0 {
		t.Fatalf("block 0: %v %v", b, err)
	}
	if _, err := c.HeaderByNumber(ctx, 5); !remote.IsUpstream(err) {
		t.Fatalf("a block the upstream does not have: %v, want an UpstreamError", err)
	}
	if id, err := c.ChainID(ctx); err != nil || id != 1337 {
		t.Fatalf("chain id %d %v", id, err)
	}
}

// TestStateByHash: a State given its block's hash reads by that hash (EIP-1898), so it answers
// for that block only: the upstream's genesis by its hash gives its values, and a hash the
// upstream does not have fails the read instead of answering for another block at that height.
func TestStateByHash(t *testing.T) {
	t.Parallel()
	up := startUpstream(t)
	ctx := context.Background()
	client := remote.NewClient(remote.Config{URL: up.url, Retries: 1, Backoff: time.Millisecond})
	raw, err := client.Call(ctx, "eth_getBlockByNumber", "0x0", false)
	if err != nil {
		t.Fatal(err)
	}
	var genesis struct {
		Hash common.Hash `json:"hash"`
	}
	if err := json.Unmarshal(raw, &genesis); err != nil || genesis.Hash == (common.Hash{}) {
		t.Fatalf("genesis %s: %v", raw, err)
	}
	slot := common.BigToHash(big.NewInt(3))
	s := remote.NewState(remote.StateConfig{Client: client, Block: 0, BlockHash: genesis.Hash})
	if v, err := s.Storage(ctx, contract, slot); err != nil || v != common.BigToHash(big.NewInt(4)) {
		t.Fatalf("slot 3 at the genesis hash = %s %v, want 4", v, err)
	}
	other := remote.NewState(remote.StateConfig{Client: client, Block: 0, BlockHash: common.Hash{0x0b}})
	if v, err := other.Storage(ctx, contract, slot); err == nil {
		t.Fatalf("slot 3 at a block hash the upstream does not have = %s, want an error", v)
	}
}
