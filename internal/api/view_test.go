package api

import (
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"fmt"
	"math/big"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"

	"github.com/flashrpc/flashrpc/internal/chain"
	"github.com/flashrpc/flashrpc/internal/preconf"
	"github.com/flashrpc/flashrpc/internal/rpc"
	"github.com/flashrpc/flashrpc/internal/sequencer"
	"github.com/flashrpc/flashrpc/internal/txpool"
)

// The tests of one view per request: every answer is consistent with the sealed head and the
// pre-confirmation it started from, so that
//
//   - a transaction or receipt an answer has shown is never null in a later answer,
//   - eth_getLogs up to `pending` never returns a log twice nor misses one across a seal,
//   - `latest` never goes backwards.
//
// (Retraction through dev_seal with a transaction list, and reorganisations, are the
// documented exceptions; neither happens here.)

// echoAddr holds runtime code that emits LOG1(echoTopic) with the call data as data.
var (
	echoTopic = common.Hash{0xec}
	echoAddr  = common.Address{0xec}
	echoCode  = append(append([]byte{0x36, 0x5f, 0x5f, 0x37, 0x7f}, echoTopic[:]...), 0x36, 0x5f, 0xa1, 0x00)
)

// viewNode is a dev chain with funded senders and the echo contract, a sequencer and the
// pre-confirmed endpoint's API.
type viewNode struct {
	chain *chain.Chain
	pre   *preconf.Preconf
	seq   *sequencer.Sequencer
	api   *API
	keys  []*ecdsa.PrivateKey
}

// newViewNode starts the node; timing as in sequencer.Config (zero: manual).
func newViewNode(t testing.TB, senders int, blockTime, preconfInterval time.Duration) *viewNode {
	t.Helper()
	n := &viewNode{}
	var funded []common.Address
	for range senders {
		k, _ := crypto.GenerateKey()
		n.keys = append(n.keys, k)
		funded = append(funded, crypto.PubkeyToAddress(k.PublicKey))
	}
	g := chain.DevGenesis(chain.DefaultChainID, funded)
	g.Alloc[echoAddr] = types.Account{Code: echoCode}
	c, err := chain.Open(chain.Config{DataDir: t.TempDir(), Genesis: g})
	if err != nil {
		t.Fatal(err)
	}
	n.chain = c
	n.pre = preconf.New(c)
	pool := txpool.New(c.Config(), txpool.Config{})
	n.seq = sequencer.New(sequencer.Config{BlockTime: blockTime, PreconfInterval: preconfInterval}, c, n.pre, pool)
	n.api = New(Config{Pending: true}, Backend{Chain: c, Preconf: n.pre, Pool: pool})
	if err := n.seq.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		n.seq.Close()
		c.Close()
	})
	return n
}

// echoTx is a call of the echo contract from sender i.
func (n *viewNode) echoTx(t testing.TB, i int, nonce uint64) *types.Transaction {
	t.Helper()
	tx, err := types.SignNewTx(n.keys[i], types.LatestSigner(n.chain.Config()), &types.DynamicFeeTx{
		ChainID: n.chain.Config().ChainID, Nonce: nonce, To: &echoAddr, Data: []byte{byte(i), byte(nonce)}, Gas: 100_000,
		GasFeeCap: big.NewInt(10 * params.GWei), GasTipCap: big.NewInt(params.GWei),
	})
	if err != nil {
		t.Fatal(err)
	}
	return tx
}

// encodeParams encodes method parameters.
func encodeParams(t testing.TB, args ...any) rpc.Params {
	t.Helper()
	p := make(rpc.Params, len(args))
	for i, a := range args {
		raw, err := json.Marshal(a)
		if err != nil {
			t.Fatal(err)
		}
		p[i] = raw
	}
	return p
}

// resultJSON returns a method's result as JSON.
func resultJSON(t testing.TB, res any) []byte {
	t.Helper()
	if raw, ok := res.(json.RawMessage); ok {
		return raw
	}
	raw, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// viewStressDuration is how long TestViewUnderLoad's readers poll; FLASHRPC_VIEW_STRESS (a Go
// duration) changes it. It is an amount of work: nothing is asserted about speed.
func viewStressDuration(t *testing.T) time.Duration {
	t.Helper()
	if s := os.Getenv("FLASHRPC_VIEW_STRESS"); s != "" {
		d, err := time.ParseDuration(s)
		if err != nil {
			t.Fatalf("FLASHRPC_VIEW_STRESS: %v", err)
		}
		return d
	}
	return 3 * time.Second
}

// Shape of TestViewUnderLoad.
const (
	loadSenders     = 4  // senders of echo calls, each with eth_sendRawTransactionSync
	loadReaders     = 8  // concurrent readers
	loadLogsWindow  = 8  // eth_getLogs asks from this many blocks below the newest head shown
	loadMaxReported = 20 // violations reported in full
)

// TestViewUnderLoad runs readers against a dev chain that pre-confirms every 10 ms and seals
// every 50 ms, calling the pre-confirmed endpoint's methods as the transport does, and checks
// each answer against what earlier answers showed (the invariants above). A request "later"
// than an answer is one that began after the answer arrived.
func TestViewUnderLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("stress test: blocks sealing under concurrent readers")
	}
	n := newViewNode(t, loadSenders, 50*time.Millisecond, 10*time.Millisecond)
	methods := n.api.Service().Methods
	chk := &loadChecker{t: t, methods: methods, shown: make(map[common.Hash]uint64), logs: make(map[common.Hash]uint64)}
	ctx, cancel := context.WithTimeout(context.Background(), viewStressDuration(t))
	defer cancel()
	var wg sync.WaitGroup
	for i := range loadSenders {
		wg.Go(func() { chk.send(ctx, n, i) })
	}
	for r := range loadReaders {
		wg.Go(func() { chk.read(ctx, r) })
	}
	wg.Wait()
	t.Logf("%d transactions pre-confirmed; %d lookups, %d eth_getLogs, %d head reads; newest head %d; %d violations",
		chk.sent.Load(), chk.lookups.Load(), chk.logCalls.Load(), chk.headCalls.Load(), chk.latest.Load(), chk.violations)
	if chk.sent.Load() == 0 || chk.lookups.Load() == 0 || chk.logCalls.Load() == 0 {
		t.Fatal("the run did no work")
	}
	if chk.violations > 0 {
		t.Fatalf("%d answers contradicted earlier ones; the first:\n%s", chk.violations, chk.report)
	}
}

// loadChecker holds what answers have shown. Its methods are safe for concurrent use.
type loadChecker struct {
	t       *testing.T
	methods map[string]rpc.Method

	mu         sync.Mutex             // guards the fields below
	shown      map[common.Hash]uint64 // transactions an answer has shown → the block it named
	pending    []common.Hash          // shown in the newest block in progress seen
	logs       map[common.Hash]uint64 // transaction → block of its log, as eth_getLogs showed it
	violations int                    // answers that contradicted an earlier one
	report     string                 // the first loadMaxReported of them

	latest                             atomic.Uint64 // the highest `latest` an answer has shown
	sent, lookups, logCalls, headCalls atomic.Int64
}

func (c *loadChecker) violation(format string, args ...any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.violations++
	if c.violations <= loadMaxReported {
		c.report += fmt.Sprintf(format, args...) + "\n"
	}
}

// call calls a method as the transport does. The readers never wait for anything, unlike a
// server's, which wait for their sockets; call yields after each request so that the
// sequencer, which parks for its disk writes, is not starved by them.
func (c *loadChecker) call(ctx context.Context, method string, args ...any) []byte {
	defer runtime.Gosched()
	res, err := c.methods[method](ctx, encodeParams(c.t, args...))
	if err != nil {
		if ctx.Err() == nil { // not the end of the run
			c.violation("%s%v: %v", method, args, err)
		}
		return nil
	}
	return resultJSON(c.t, res)
}

// send pre-confirms echo calls from sender i one after the other with
// eth_sendRawTransactionSync, whose answer is the first to show each.
func (c *loadChecker) send(ctx context.Context, n *viewNode, i int) {
	for nonce := uint64(0); ctx.Err() == nil; nonce++ {
		raw, _ := n.echoTx(c.t, i, nonce).MarshalBinary()
		out := c.call(ctx, "eth_sendRawTransactionSync", hexutil.Bytes(raw))
		var r struct {
			TxHash      common.Hash    `json:"transactionHash"`
			BlockNumber hexutil.Uint64 `json:"blockNumber"`
		}
		if out == nil || json.Unmarshal(out, &r) != nil {
			return
		}
		c.mu.Lock()
		c.shown[r.TxHash] = uint64(r.BlockNumber)
		if uint64(r.BlockNumber) > c.latest.Load() {
			c.pending = append(c.pending, r.TxHash)
		}
		c.mu.Unlock()
		c.sent.Add(1)
	}
}

// read polls until ctx ends: the transactions of the block in progress (the ones a seal moves
// while they are looked up), the head, and the logs up to `pending`.
func (c *loadChecker) read(ctx context.Context, r int) {
	for round := 0; ctx.Err() == nil; round++ {
		c.mu.Lock()
		latest := c.latest.Load()
		k := 0
		for _, h := range c.pending {
			if c.shown[h] > latest {
				c.pending[k] = h
				k++
			}
		}
		c.pending = c.pending[:k]
		list := append([]common.Hash(nil), c.pending...)
		c.mu.Unlock()
		for _, h := range list {
			for _, method := range []string{"eth_getTransactionReceipt", "eth_getTransactionByHash"} {
				c.lookups.Add(1)
				// Shown before this request began: the sender's answer came first.
				if out := c.call(ctx, method, h); out != nil && string(out) == "null" {
					c.violation("%s(%s) = null after an earlier answer showed it", method, h)
				}
			}
		}
		c.checkHead(ctx)
		if (round+r)%4 == 0 {
			c.checkLogs(ctx)
		}
	}
}

// checkHead reads `latest` two ways; neither may be below what an earlier answer showed.
func (c *loadChecker) checkHead(ctx context.Context) {
	for _, q := range []struct {
		method string
		args   []any
	}{{"eth_blockNumber", nil}, {"eth_getBlockByNumber", []any{"latest", false}}} {
		c.headCalls.Add(1)
		before := c.latest.Load()
		out := c.call(ctx, q.method, q.args...)
		if out == nil {
			return
		}
		var n hexutil.Uint64
		if q.method == "eth_blockNumber" {
			json.Unmarshal(out, &n)
		} else {
			var b struct {
				Number hexutil.Uint64 `json:"number"`
			}
			json.Unmarshal(out, &b)
			n = b.Number
		}
		if uint64(n) < before {
			c.violation("%s: latest %d after an earlier answer showed %d", q.method, n, before)
		}
		for old := c.latest.Load(); uint64(n) > old && !c.latest.CompareAndSwap(old, uint64(n)); old = c.latest.Load() {
		}
	}
}

// checkLogs asks for the echo contract's logs from a few blocks below the newest head shown up
// to `pending`: no log twice, and every log an earlier answer showed in that range.
func (c *loadChecker) checkLogs(ctx context.Context) {
	c.logCalls.Add(1)
	latest := c.latest.Load()
	from := latest - min(latest, loadLogsWindow)
	c.mu.Lock()
	var want []common.Hash
	for tx, block := range c.logs {
		if block >= from {
			want = append(want, tx)
		}
	}
	c.mu.Unlock()
	out := c.call(ctx, "eth_getLogs", map[string]any{"address": echoAddr, "fromBlock": hexutil.Uint64(from), "toBlock": "pending"})
	var got []struct {
		TxHash      common.Hash    `json:"transactionHash"`
		BlockNumber hexutil.Uint64 `json:"blockNumber"`
	}
	if out == nil || json.Unmarshal(out, &got) != nil {
		return
	}
	seen := make(map[common.Hash]uint64, len(got))
	for _, l := range got {
		if b, dup := seen[l.TxHash]; dup {
			c.violation("eth_getLogs from %d: the log of %s twice (blocks %d and %d)", from, l.TxHash, b, l.BlockNumber)
		}
		seen[l.TxHash] = uint64(l.BlockNumber)
	}
	for _, tx := range want {
		if _, ok := seen[tx]; !ok {
			c.violation("eth_getLogs from %d: the log of %s is missing after an earlier answer showed it", from, tx)
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for tx, block := range seen {
		c.logs[tx] = block
	}
	for tx, block := range c.logs { // forget what no later query asks for
		if block+4*loadLogsWindow < latest {
			delete(c.logs, tx)
		}
	}
}

// TestViewAcrossSeal forces, without timing, the interleaving that made answers contradict
// each other before requests had one view: a request loads its view, the block seals, and
// the request resolves afterwards. Resolving with the old view must answer as of that view
// (the transaction pre-confirmed, its log once, `latest` the old head), the new view as of
// the seal; and a view from before the pre-confirmation shows nothing of it.
func TestViewAcrossSeal(t *testing.T) {
	ctx := context.Background()
	n := newViewNode(t, 1, 0, 0)
	if _, err := n.seq.Seal(ctx); err != nil { // block 1, empty: the test's block is 2
		t.Fatal(err)
	}
	tx := n.echoTx(t, 0, 0)
	raw, _ := tx.MarshalBinary()
	before := n.api.core.View() // nothing of tx yet
	if _, err := n.api.events.SendRawTransaction(ctx, encodeParams(t, hexutil.Bytes(raw))); err != nil {
		t.Fatal(err)
	}
	if _, err := n.seq.Preconfirm(ctx); err != nil {
		t.Fatal(err)
	}
	preconfirmed := n.api.core.View() // tx pre-confirmed in block 2
	block, err := n.seq.Seal(ctx)
	if err != nil {
		t.Fatal(err)
	}
	sealed := n.api.core.View() // block 2 sealed, block 3 in progress
	if preconfirmed.Pending == nil || preconfirmed.Latest.Number.Uint64() != 1 || sealed.Latest.Number.Uint64() != 2 || block.NumberU64() != 2 {
		t.Fatalf("views: pre-confirmed %+v, sealed %+v", preconfirmed, sealed)
	}

	hash := tx.Hash()
	zero := common.Hash{}
	logsFilter := map[string]any{"address": echoAddr, "fromBlock": "0x1", "toBlock": "pending"}
	type answer = map[string]any
	cases := []struct {
		name   string
		method viewMethod
		args   []any
		check  func(t *testing.T, v string, got any) // v names the view
	}{
		{"eth_getTransactionReceipt", n.api.reads.GetTransactionReceipt, []any{hash}, func(t *testing.T, v string, got any) {
			switch r, _ := got.(answer); v {
			case "before":
				if got != nil {
					t.Fatalf("receipt %v, want null", got)
				}
			case "pre-confirmed":
				if r == nil || r["blockHash"] != zero.Hex() || r["blockNumber"] != "0x2" {
					t.Fatalf("receipt %v, want the pre-confirmed one", got)
				}
			case "sealed":
				if r == nil || r["blockHash"] != block.Hash().Hex() {
					t.Fatalf("receipt %v, want the sealed one", got)
				}
			}
		}},
		{"eth_getTransactionByHash", func(ctx context.Context, v preconf.View, p rpc.Params) (any, error) {
			return n.api.reads.TransactionByHash(v, hash, nil), nil
		}, nil, func(t *testing.T, v string, got any) {
			switch r, _ := got.(answer); v {
			case "before":
				if got != nil {
					t.Fatalf("transaction %v, want null", got)
				}
			case "pre-confirmed":
				if r == nil || r["blockHash"] != nil || r["blockNumber"] != "0x2" {
					t.Fatalf("transaction %v, want the pre-confirmed one", got)
				}
			case "sealed":
				if r == nil || r["blockHash"] != block.Hash().Hex() {
					t.Fatalf("transaction %v, want the sealed one", got)
				}
			}
		}},
		{"eth_getLogs", n.api.events.GetLogs, []any{logsFilter}, func(t *testing.T, v string, got any) {
			list, _ := got.([]any)
			want := map[string]string{"before": "", "pre-confirmed": zero.Hex(), "sealed": block.Hash().Hex()}[v]
			if want == "" {
				if len(list) != 0 {
					t.Fatalf("logs %v, want none", got)
				}
				return
			}
			if len(list) != 1 || list[0].(answer)["blockHash"] != want || list[0].(answer)["transactionHash"] != hash.Hex() {
				t.Fatalf("logs %v, want the one log with block hash %s", got, want)
			}
		}},
		{"eth_blockNumber", n.api.reads.BlockNumber, nil, func(t *testing.T, v string, got any) {
			if want := map[string]string{"before": "0x1", "pre-confirmed": "0x1", "sealed": "0x2"}[v]; got != want {
				t.Fatalf("block number %v, want %s", got, want)
			}
		}},
		{"eth_getBlockByNumber(2)", n.api.reads.GetBlockByNumber, []any{"0x2", false}, func(t *testing.T, v string, got any) {
			if r, _ := got.(answer); (v == "sealed") != (r != nil) {
				t.Fatalf("block 2: %v", got)
			}
		}},
		{"eth_getBlockByNumber(pending)", n.api.reads.GetBlockByNumber, []any{"pending", false}, func(t *testing.T, v string, got any) {
			r, _ := got.(answer)
			txs, _ := r["transactions"].([]any)
			want := map[string]string{"before": "0x2", "pre-confirmed": "0x2", "sealed": "0x3"}[v]
			if r["number"] != want || (v == "pre-confirmed") != (len(txs) == 1) {
				t.Fatalf("pending block %v, want block %s", got, want)
			}
		}},
		{"eth_getTransactionCount(latest)", n.api.reads.GetTransactionCount, []any{crypto.PubkeyToAddress(n.keys[0].PublicKey), "latest"}, func(t *testing.T, v string, got any) {
			// The pre-confirmed endpoint's `latest` nonce counts pre-confirmed transactions
			// (decisions.md "Nonces on the pre-confirmed endpoint").
			if want := map[string]string{"before": "0x0", "pre-confirmed": "0x1", "sealed": "0x1"}[v]; got != want {
				t.Fatalf("nonce %v, want %s", got, want)
			}
		}},
		{"eth_getBalance(pending)", n.api.reads.GetBalance, []any{crypto.PubkeyToAddress(n.keys[0].PublicKey), "pending"}, func(t *testing.T, v string, got any) {
			full := hexutil.EncodeBig(chain.DevAccountBalance)
			if (v == "before") != (got == full) {
				t.Fatalf("pending balance %v (full %s)", got, full)
			}
		}},
	}
	views := []struct {
		name string
		v    preconf.View
	}{{"before", before}, {"pre-confirmed", preconfirmed}, {"sealed", sealed}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for _, v := range views {
				res, err := tc.method(ctx, v.v, encodeParams(t, tc.args...))
				if err != nil {
					t.Fatalf("%s view: %v", v.name, err)
				}
				var got any
				if err := json.Unmarshal(resultJSON(t, res), &got); err != nil {
					t.Fatal(err)
				}
				tc.check(t, v.name, got)
			}
		})
	}
}
