package fork_test

import (
	"context"
	"crypto/ecdsa"
	"math/big"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"

	"github.com/flashrpc/flashrpc/internal/api"
	"github.com/flashrpc/flashrpc/internal/chain"
	"github.com/flashrpc/flashrpc/internal/fork"
	"github.com/flashrpc/flashrpc/internal/preconf"
	"github.com/flashrpc/flashrpc/internal/remote"
	"github.com/flashrpc/flashrpc/internal/rpc"
)

// The fork tests run a real upstream: a flashrpc chain served over JSON-RPC on loopback.

// setterAddr holds runtime code that stores calldata[32:64] at slot calldata[0:32]:
// PUSH1 32 CALLDATALOAD PUSH1 0 CALLDATALOAD SSTORE STOP.
var (
	setterAddr = common.Address{0x5e}
	setterCode = []byte{0x60, 0x20, 0x35, 0x60, 0x00, 0x35, 0x55, 0x00}
)

func slot(i int64) common.Hash { return common.BigToHash(big.NewInt(i)) }

// upstream is a chain served over JSON-RPC.
type upstream struct {
	chain *chain.Chain
	url   string
	key   *ecdsa.PrivateKey
	nonce uint64
}

// startUpstream opens a dev chain with chainID, the setter contract holding slots 0..9 =
// 1..10, and key funded, and serves it on loopback.
func startUpstream(t *testing.T, chainID uint64) *upstream {
	t.Helper()
	key, _ := crypto.HexToECDSA("ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80")
	g := chain.DevGenesis(chainID, []common.Address{crypto.PubkeyToAddress(key.PublicKey)})
	storage := map[common.Hash]common.Hash{}
	for i := int64(0); i < 10; i++ {
		storage[slot(i)] = slot(i + 1)
	}
	g.Alloc[setterAddr] = types.Account{Code: setterCode, Storage: storage, Nonce: 1}
	return serveUpstream(t, g, key)
}

// serveUpstream opens a chain with genesis g, key one of its funded accounts, and serves it
// on loopback.
func serveUpstream(t *testing.T, g *core.Genesis, key *ecdsa.PrivateKey) *upstream {
	t.Helper()
	c, err := chain.Open(chain.Config{DataDir: t.TempDir(), Genesis: g})
	if err != nil {
		t.Fatal(err)
	}
	a := api.New(api.Config{}, api.Backend{Chain: c})
	srv := rpc.NewServer(rpc.Config{}, a.Service())
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ln)
	t.Cleanup(func() {
		srv.Shutdown(context.Background())
		c.Close()
	})
	return &upstream{chain: c, url: "http://" + ln.Addr().String(), key: key}
}

// set seals a block on u that sets the setter's slots (pairs of slot, value).
func (u *upstream) set(t *testing.T, kv ...int64) *types.Block {
	t.Helper()
	return sealSet(t, u.chain, u.key, &u.nonce, kv...)
}

// sealSet seals a block on c with one setter call per (slot, value) pair, from key.
func sealSet(t *testing.T, c *chain.Chain, key *ecdsa.PrivateKey, nonce *uint64, kv ...int64) *types.Block {
	t.Helper()
	ctx := context.Background()
	p := preconf.New(c)
	head := c.Head()
	if _, err := p.Open(ctx, preconf.NextAttributes(c.Config(), head, head.Time+2, common.Address{}, nil), preconf.PublishOptions{}); err != nil {
		t.Fatal(err)
	}
	b, err := p.Begin()
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(kv); i += 2 {
		data := append(slot(kv[i]).Bytes(), slot(kv[i+1]).Bytes()...)
		tx, err := types.SignNewTx(key, types.LatestSigner(c.Config()), &types.DynamicFeeTx{
			ChainID: c.Config().ChainID, Nonce: *nonce, To: &setterAddr, Data: data, Gas: 100_000,
			GasFeeCap: big.NewInt(10 * params.GWei), GasTipCap: big.NewInt(params.GWei),
		})
		if err != nil {
			t.Fatal(err)
		}
		if err := b.Add(ctx, tx); err != nil {
			t.Fatal(err)
		}
		*nonce++
	}
	if _, err := b.Commit(ctx, preconf.PublishOptions{}); err != nil {
		t.Fatal(err)
	}
	block, err := p.Seal(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return block
}

var devAccount = common.Address{0xde, 0xf0}

func forkConfig(url string, block int64) *fork.Config {
	return &fork.Config{URL: url, Block: &block, Retries: 0, Funded: []common.Address{devAccount}, Balance: chain.DevAccountBalance}
}

// readSlots returns the setter's slots 0..n-1 at the state after h.
func readSlots(t *testing.T, c *chain.Chain, h *types.Header, n int) []int64 {
	t.Helper()
	st, err := c.StateAt(h)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]int64, n)
	for i := range out {
		out[i] = st.GetState(setterAddr, slot(int64(i))).Big().Int64()
	}
	if err := st.Error(); err != nil {
		t.Fatal(err)
	}
	return out
}

func equalInts(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestForkState forks block 2 of an upstream whose state changes after it, and checks that
// the fork reads the upstream's state at block 2 (not later), that local writes (a slot set
// to zero included) shadow it in local states only, and that a restart reads everything
// again without asking the upstream for state.
func TestForkState(t *testing.T) {
	t.Parallel()
	up := startUpstream(t, 31337)
	up.set(t, 1, 20)       // block 1
	b2 := up.set(t, 2, 30) // block 2: the fork block
	up.set(t, 0, 99, 5, 0) // block 3: after the fork, never seen by it
	dir := t.TempDir()
	c, err := fork.Open(context.Background(), chain.Config{DataDir: dir}, forkConfig(up.url, 2))
	if err != nil {
		t.Fatal(err)
	}
	first := c.Head()
	if first.Number.Uint64() != 3 || first.ParentHash != b2.Hash() {
		t.Fatalf("first forked block %d with parent %s, want 3 on %s", first.Number, first.ParentHash, b2.Hash())
	}
	if got := c.Config().ChainID.Uint64(); got != 31337 {
		t.Fatalf("chain id %d, want the upstream's 31337", got)
	}
	want := []int64{1, 20, 30, 4, 5, 6, 7, 8, 9, 10, 0}
	if got := readSlots(t, c, first, 11); !equalInts(got, want) {
		t.Fatalf("slots at the first forked block %v, want the upstream's at block 2 %v", got, want)
	}
	st, _ := c.StateAt(first)
	if bal := st.GetBalance(devAccount); bal.ToBig().Cmp(chain.DevAccountBalance) != 0 {
		t.Fatalf("dev account holds %s, want %s", bal, chain.DevAccountBalance)
	}
	if code := st.GetCode(setterAddr); string(code) != string(setterCode) {
		t.Fatalf("setter code %x, want %x", code, setterCode)
	}

	// A local block: slot 5 to zero, slot 7 to 777, slot 12 to 42.
	key := up.key
	nonce := st.GetNonce(crypto.PubkeyToAddress(key.PublicKey))
	local := sealSet(t, c, key, &nonce, 5, 0, 7, 777, 12, 42)
	if local.NumberU64() != 4 {
		t.Fatalf("local block %d, want 4", local.NumberU64())
	}
	wantLocal := []int64{1, 20, 30, 4, 5, 0, 7, 777, 9, 10, 0, 0, 42}
	if got := readSlots(t, c, local.Header(), 13); !equalInts(got, wantLocal) {
		t.Fatalf("slots at the local block %v, want %v", got, wantLocal)
	}
	if got := readSlots(t, c, first, 13); !equalInts(got, append(want, 0, 0)) {
		t.Fatalf("slots at the first forked block after a local write %v, want %v", got, append(want, 0, 0))
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}

	// A restart: one check of the upstream, no state reads.
	obs := &countObserver{}
	fc := forkConfig(up.url, 2)
	fc.Observer = obs
	c, err = fork.Open(context.Background(), chain.Config{DataDir: dir}, fc)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if c.Head().Hash() != local.Hash() {
		t.Fatalf("head after restart %d %s, want %d %s", c.Head().Number, c.Head().Hash(), local.NumberU64(), local.Hash())
	}
	if got := readSlots(t, c, c.Head(), 13); !equalInts(got, wantLocal) {
		t.Fatalf("slots after restart %v, want %v", got, wantLocal)
	}
	if obs.requests.Load() != 1 {
		t.Fatalf("the restart sent %d requests to the upstream, want 1 (the chain check)", obs.requests.Load())
	}
}

// countObserver counts upstream requests and cache misses.
type countObserver struct{ requests, misses atomic.Int64 }

func (o *countObserver) UpstreamRequest(map[string]int, string, time.Duration, bool) {
	o.requests.Add(1)
}

func (o *countObserver) CacheRead(kind string, hit bool) {
	if !hit {
		o.misses.Add(1)
	}
}

var _ remote.Observer = (*countObserver)(nil)
