package devapi_test

import (
	"context"
	"errors"
	"math/big"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/ethclient"
	gethrpc "github.com/ethereum/go-ethereum/rpc"

	"github.com/flashrpc/flashrpc/internal/api"
	"github.com/flashrpc/flashrpc/internal/chain"
	"github.com/flashrpc/flashrpc/internal/devaccounts"
	"github.com/flashrpc/flashrpc/internal/devapi"
	"github.com/flashrpc/flashrpc/internal/oprollup"
	"github.com/flashrpc/flashrpc/internal/preconf"
	"github.com/flashrpc/flashrpc/internal/rpc"
	"github.com/flashrpc/flashrpc/internal/sequencer"
	"github.com/flashrpc/flashrpc/internal/txpool"
)

// devNode is a dev chain in manual mode (no timers) with both endpoints on loopback HTTP,
// the dev methods registered on each, as `flashrpc dev` wires them.
type devNode struct {
	chain    *chain.Chain
	seq      *sequencer.Sequencer
	preconf  *preconf.Preconf
	accounts []devaccounts.Account
	std, pre *gethrpc.Client
	stdEth   *ethclient.Client
	preEth   *ethclient.Client
	preWS    string // the pre-confirmed endpoint's WebSocket URL
}

// newDevNode starts a dev node: an OP Stack chain when op is set, else a plain one.
func newDevNode(t testing.TB, op bool) *devNode {
	t.Helper()
	return newDevNodeWith(t, op, sequencer.Config{})
}

// newDevNodeWith is newDevNode with the sequencer's timing from seqCfg (BlockTime,
// PreconfInterval).
func newDevNodeWith(t testing.TB, op bool, seqCfg sequencer.Config, devOpts ...func(*devapi.Config)) *devNode {
	t.Helper()
	accs, err := devaccounts.Derive(devaccounts.TestMnemonic, 10)
	if err != nil {
		t.Fatal(err)
	}
	funded := make([]common.Address, len(accs))
	for i, acc := range accs {
		funded[i] = acc.Address
	}
	g := chain.DevGenesis(chain.DefaultChainID, funded)
	if op {
		g = oprollup.DevGenesis(chain.DefaultChainID, funded, chain.DevAccountBalance)
		seqCfg.L1 = &oprollup.DevL1{GenesisTime: g.Timestamp}
	}
	c, err := chain.Open(chain.Config{DataDir: t.TempDir(), Genesis: g, Impersonation: true, Preimages: true})
	if err != nil {
		t.Fatal(err)
	}
	pre := preconf.New(c)
	pool := txpool.New(c.Config(), txpool.Config{})
	seq := sequencer.New(seqCfg, c, pre, pool)
	b := api.Backend{Chain: c, Preconf: pre, Pool: pool}
	devCfg := devapi.Config{Accounts: accs}
	for _, opt := range devOpts {
		opt(&devCfg)
	}
	dev := devapi.New(devCfg, devapi.Backend{Chain: c, Preconf: pre, Pool: pool, Sequencer: seq})
	n := &devNode{chain: c, seq: seq, accounts: accs, preconf: pre}
	var servers []*httptest.Server
	for _, pending := range []bool{false, true} {
		a := api.New(api.Config{Pending: pending, Extend: dev.Register}, b)
		srv := httptest.NewServer(rpc.NewServer(rpc.Config{}, a.Service()))
		servers = append(servers, srv)
		cl, err := gethrpc.Dial(srv.URL)
		if err != nil {
			t.Fatal(err)
		}
		if pending {
			n.pre, n.preEth = cl, ethclient.NewClient(cl)
			n.preWS = "ws" + strings.TrimPrefix(srv.URL, "http")
		} else {
			n.std, n.stdEth = cl, ethclient.NewClient(cl)
		}
	}
	if err := seq.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		n.std.Close()
		n.pre.Close()
		for _, s := range servers {
			s.Close()
		}
		seq.Close()
		c.Close()
	})
	return n
}

func (n *devNode) addr(i int) common.Address { return n.accounts[i].Address }

func (n *devNode) preconfirm(t testing.TB) *preconf.Snapshot {
	t.Helper()
	snap, err := n.seq.Preconfirm(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return snap
}

func (n *devNode) seal(t testing.TB) *types.Block {
	t.Helper()
	b, err := n.seq.Seal(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// mustCall calls method on cl and decodes the result into out (unless nil).
func mustCall(t testing.TB, cl *gethrpc.Client, out any, method string, args ...any) {
	t.Helper()
	if err := cl.Call(out, method, args...); err != nil {
		t.Fatalf("%s: %v", method, err)
	}
}

// wantError checks that method fails with code and a message holding each of words.
func wantError(t testing.TB, cl *gethrpc.Client, code int, words []string, method string, args ...any) {
	t.Helper()
	var out any
	err := cl.Call(&out, method, args...)
	if err == nil {
		t.Fatalf("%s: got %v, want error %d", method, out, code)
	}
	var ce gethrpc.Error
	if !errors.As(err, &ce) || ce.ErrorCode() != code {
		t.Fatalf("%s: got error %v, want code %d", method, err, code)
	}
	for _, w := range words {
		if !strings.Contains(err.Error(), w) {
			t.Fatalf("%s: error %q does not say %q", method, err, w)
		}
	}
}

// wantNoReceipt checks that cl has no receipt of hash: ethclient's NotFound, not a receipt
// and not another error. what names the transaction for messages.
func wantNoReceipt(t testing.TB, cl *ethclient.Client, hash common.Hash, what string) {
	t.Helper()
	r, err := cl.TransactionReceipt(context.Background(), hash)
	if r != nil {
		t.Fatalf("%s still has a receipt", what)
	}
	if !errors.Is(err, ethereum.NotFound) {
		t.Fatalf("receipt of %s: %v, want not found", what, err)
	}
}

// balance is addr's balance at block ("latest", "pending") on cl.
func balance(t testing.TB, cl *ethclient.Client, addr common.Address, pending bool) *big.Int {
	t.Helper()
	var b *big.Int
	var err error
	if pending {
		b, err = cl.PendingBalanceAt(context.Background(), addr)
	} else {
		b, err = cl.BalanceAt(context.Background(), addr, nil)
	}
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// gethClient names a client for messages.
type gethClient struct {
	name string
	c    *gethrpc.Client
}

// hexBytes encodes b as 0x-prefixed hex for a parameter.
func hexBytes(b []byte) string { return hexutil.Encode(b) }
