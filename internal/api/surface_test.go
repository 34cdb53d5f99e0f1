package api

import (
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"errors"
	"math/big"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"

	"github.com/flashrpc/flashrpc/internal/api/events"
	"github.com/flashrpc/flashrpc/internal/chain"
	"github.com/flashrpc/flashrpc/internal/oprollup"
	"github.com/flashrpc/flashrpc/internal/preconf"
	"github.com/flashrpc/flashrpc/internal/rpc"
	"github.com/flashrpc/flashrpc/internal/sequencer"
	"github.com/flashrpc/flashrpc/internal/txpool"
)

// Shared fixtures of the tests of the methods beyond the core ones: a manual dev
// chain (pre-confirmations and seals on request) with both endpoints' APIs.

var (
	// spinAddr loops forever.
	spinAddr = common.Address{0x5b}
	spinCode = common.FromHex("0x5b600056")
	// storeAddr stores its call data's first word in slot 0 and emits it in LOG1(storeTopic).
	storeAddr  = common.Address{0x57}
	storeTopic = common.Hash{0x57}
	// CALLDATALOAD(0), SSTORE(0, it), MSTORE(0, it), LOG1(0, 32, storeTopic), STOP
	storeCode = append(append(common.FromHex("0x5f35805f55"+"5f52"+"7f"), storeTopic[:]...), common.FromHex("0x60205fa100")...)
)

// surfaceNode is a dev chain in manual mode with the standard (std) and pre-confirmed (pre)
// endpoints' APIs.
type surfaceNode struct {
	chain    *chain.Chain
	preconf  *preconf.Preconf
	pool     *txpool.Pool
	seq      *sequencer.Sequencer
	std, pre *API
	keys     []*ecdsa.PrivateKey
	nonces   []uint64
}

// newSurfaceNode starts the node with senders funded accounts; cfg configures both APIs
// (Pending is set per endpoint).
func newSurfaceNode(t testing.TB, senders int, cfg Config) *surfaceNode {
	t.Helper()
	return newSurfaceNodeBackend(t, senders, cfg, nil)
}

// newSurfaceNodeBackend is newSurfaceNode with the node's filter slots (nil: each API its
// own).
func newSurfaceNodeBackend(t testing.TB, senders int, cfg Config, slots *events.FilterSlots) *surfaceNode {
	t.Helper()
	return newSurfaceNodeOf(t, senders, cfg, slots, false, nil)
}

// newOPSurfaceNode is newSurfaceNode on an OP Stack dev chain: every block opens with the
// L1-attributes deposit.
func newOPSurfaceNode(t testing.TB, senders int, cfg Config) *surfaceNode {
	t.Helper()
	return newSurfaceNodeOf(t, senders, cfg, nil, true, nil)
}

// newSurfaceNodeOf starts a dev chain: an OP Stack chain when op is set, which runs Denim from
// denim when it is not nil (BaseTime in its genesis).
func newSurfaceNodeOf(t testing.TB, senders int, cfg Config, slots *events.FilterSlots, op bool, denim *uint64) *surfaceNode {
	t.Helper()
	n := &surfaceNode{nonces: make([]uint64, senders)}
	var funded []common.Address
	for range senders {
		k, _ := crypto.GenerateKey()
		n.keys = append(n.keys, k)
		funded = append(funded, crypto.PubkeyToAddress(k.PublicKey))
	}
	g := chain.DevGenesis(chain.DefaultChainID, funded)
	var seqCfg sequencer.Config
	if op {
		g = oprollup.DevGenesis(chain.DefaultChainID, funded, chain.DevAccountBalance)
		seqCfg.L1 = &oprollup.DevL1{GenesisTime: g.Timestamp}
	}
	if op && denim != nil {
		var err error
		if g, err = oprollup.DevDenimGenesis(chain.DefaultChainID, funded, chain.DevAccountBalance, *denim); err != nil {
			t.Fatal(err)
		}
		seqCfg.Denim = denim
	}
	g.Alloc[echoAddr] = types.Account{Code: echoCode}
	g.Alloc[spinAddr] = types.Account{Code: spinCode}
	g.Alloc[storeAddr] = types.Account{Code: storeCode}
	c, err := chain.Open(chain.Config{DataDir: t.TempDir(), Genesis: g, Denim: denim})
	if err != nil {
		t.Fatal(err)
	}
	n.chain = c
	pre := preconf.New(c)
	pool := txpool.New(c.Config(), txpool.Config{})
	n.seq = sequencer.New(seqCfg, c, pre, pool)
	n.preconf, n.pool = pre, pool
	b := Backend{Chain: c, Preconf: pre, Pool: pool, Filters: slots}
	std, pend := cfg, cfg
	std.Pending, pend.Pending = false, true
	n.std, n.pre = New(std, b), New(pend, b)
	if err := n.seq.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		n.seq.Close()
		c.Close()
	})
	return n
}

// addr is sender i's address.
func (n *surfaceNode) addr(i int) common.Address { return crypto.PubkeyToAddress(n.keys[i].PublicKey) }

// send signs a call of to with data from sender i and submits it; it returns the hash.
func (n *surfaceNode) send(t testing.TB, i int, to common.Address, data []byte) common.Hash {
	t.Helper()
	tx, err := types.SignNewTx(n.keys[i], types.LatestSigner(n.chain.Config()), &types.DynamicFeeTx{
		ChainID: n.chain.Config().ChainID, Nonce: n.nonces[i], To: &to, Data: data, Gas: 200_000,
		GasFeeCap: big.NewInt(10 * params.GWei), GasTipCap: big.NewInt(params.GWei),
	})
	if err != nil {
		t.Fatal(err)
	}
	n.nonces[i]++
	raw, _ := tx.MarshalBinary()
	if _, rerr := n.call(t, n.pre, "eth_sendRawTransaction", hexutil.Bytes(raw)); rerr != nil {
		t.Fatalf("send: %v", rerr)
	}
	return tx.Hash()
}

func (n *surfaceNode) preconfirm(t testing.TB) *preconf.Snapshot {
	t.Helper()
	snap, err := n.seq.Preconfirm(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return snap
}

func (n *surfaceNode) seal(t testing.TB) *types.Block {
	t.Helper()
	b, err := n.seq.Seal(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// call runs a method of api as the transport does and returns its JSON result, or its
// JSON-RPC error.
func (n *surfaceNode) call(t testing.TB, api *API, method string, args ...any) (json.RawMessage, *rpc.Error) {
	t.Helper()
	m, ok := api.Service().Methods[method]
	if !ok {
		return nil, &rpc.Error{Code: rpc.CodeMethodNotFound, Message: method + " not served"}
	}
	res, err := m(context.Background(), encodeParams(t, args...))
	if err != nil {
		var re *rpc.Error
		if errors.As(err, &re) {
			return nil, re
		}
		return nil, &rpc.Error{Code: rpc.CodeServer, Message: err.Error()}
	}
	return resultJSON(t, res), nil
}

// mustCall is call for calls that must succeed; it decodes the result into out (unless nil).
func (n *surfaceNode) mustCall(t testing.TB, api *API, out any, method string, args ...any) json.RawMessage {
	t.Helper()
	raw, err := n.call(t, api, method, args...)
	if err != nil {
		t.Fatalf("%s: %d %s", method, err.Code, err.Message)
	}
	if out != nil {
		if err := json.Unmarshal(raw, out); err != nil {
			t.Fatalf("%s: decode %s: %v", method, raw, err)
		}
	}
	return raw
}

// wantError checks that a call fails with code, and that its message contains each of
// words.
func (n *surfaceNode) wantError(t testing.TB, api *API, code int, words []string, method string, args ...any) {
	t.Helper()
	raw, err := n.call(t, api, method, args...)
	if err == nil {
		t.Fatalf("%s: got result %.200s, want error %d", method, raw, code)
	}
	if err.Code != code {
		t.Fatalf("%s: got error %d %q, want code %d", method, err.Code, err.Message, code)
	}
	for _, w := range words {
		if !containsFold(err.Message, w) {
			t.Fatalf("%s: error %q does not say %q", method, err.Message, w)
		}
	}
}

func containsFold(s, sub string) bool {
	return strings.Contains(strings.ToLower(s), strings.ToLower(sub))
}
