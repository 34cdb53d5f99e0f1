package api_test

import (
	"context"
	"encoding/json"
	"errors"
	"math/big"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"
	gethrpc "github.com/ethereum/go-ethereum/rpc"

	"github.com/flashrpc/flashrpc/internal/api"
	"github.com/flashrpc/flashrpc/internal/chain"
	"github.com/flashrpc/flashrpc/internal/devapi"
	"github.com/flashrpc/flashrpc/internal/oprollup"
	"github.com/flashrpc/flashrpc/internal/preconf"
	"github.com/flashrpc/flashrpc/internal/rpc"
	"github.com/flashrpc/flashrpc/internal/sequencer"
	"github.com/flashrpc/flashrpc/internal/txpool"
)

// A chain without pre-confirmations (sequencer.Config.NoPreconfirmations, Base since Denim),
// end to end: a real OP Stack dev chain sealed on request, both endpoints and the dev methods
// on loopback HTTP servers, read with go-ethereum's client and a raw WebSocket.

var (
	// npEcho emits LOG1(npTopic) of its call data.
	npEcho  = common.Address{0xec}
	npTopic = common.Hash{0xec}
	npCode  = append(append([]byte{0x36, 0x5f, 0x5f, 0x37, 0x7f}, npTopic[:]...), 0x36, 0x5f, 0xa1, 0x00)
	// npNumberTime is init code that returns NUMBER and TIMESTAMP, 32 bytes each.
	npNumberTime = common.FromHex("0x435f5242602052" + "60405ff3")
)

// npNode is the chain, its writer and both endpoints' URLs.
type npNode struct {
	chain    *chain.Chain
	pre      *preconf.Preconf
	pool     *txpool.Pool
	seq      *sequencer.Sequencer
	std, prc *gethrpc.Client
	prcURL   string
	from     common.Address
}

// newNPNode starts an OP Stack dev chain funding testKey, Denim from genesis when denim is
// set, with the sequencer sealing every blockTime (0: on request only); noPreconf sets
// Config.NoPreconfirmations.
func newNPNode(t *testing.T, noPreconf, denim bool, blockTime time.Duration) *npNode {
	t.Helper()
	n := &npNode{from: crypto.PubkeyToAddress(testKey.PublicKey)}
	funded := []common.Address{n.from}
	g := oprollup.DevGenesis(chain.DefaultChainID, funded, chain.DevAccountBalance)
	seqCfg := sequencer.Config{L1: &oprollup.DevL1{GenesisTime: g.Timestamp}, NoPreconfirmations: noPreconf, BlockTime: blockTime}
	var denimTime *uint64
	if denim {
		denimTime = new(uint64)
		var err error
		if g, err = oprollup.DevDenimGenesis(chain.DefaultChainID, funded, chain.DevAccountBalance, 0); err != nil {
			t.Fatal(err)
		}
		seqCfg.Denim = denimTime
	}
	g.Alloc[npEcho] = types.Account{Code: npCode}
	c, err := chain.Open(chain.Config{DataDir: t.TempDir(), Genesis: g, Denim: denimTime})
	if err != nil {
		t.Fatal(err)
	}
	n.chain, n.pre, n.pool = c, preconf.New(c), txpool.New(c.Config(), txpool.Config{})
	n.seq = sequencer.New(seqCfg, c, n.pre, n.pool)
	if err := n.seq.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	b := api.Backend{Chain: c, Preconf: n.pre, Pool: n.pool}
	dev := devapi.New(devapi.Config{}, devapi.Backend{Chain: c, Preconf: n.pre, Pool: n.pool, Sequencer: n.seq})
	std := httptest.NewServer(rpc.NewServer(rpc.Config{}, api.New(api.Config{Extend: dev.Register}, b).Service()))
	prc := httptest.NewServer(rpc.NewServer(rpc.Config{}, api.New(api.Config{Pending: true, Extend: dev.Register}, b).Service()))
	n.prcURL = prc.URL
	for _, s := range []struct {
		url string
		to  **gethrpc.Client
	}{{std.URL, &n.std}, {prc.URL, &n.prc}} {
		if *s.to, err = gethrpc.Dial(s.url); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		n.std.Close()
		n.prc.Close()
		std.Close()
		prc.Close()
		n.seq.Close()
		if err := c.Close(); err != nil {
			t.Error(err)
		}
	})
	return n
}

// call runs method on c and decodes its result into out (unless nil).
func (n *npNode) call(t *testing.T, c *gethrpc.Client, out any, method string, args ...any) {
	t.Helper()
	var raw json.RawMessage
	if err := c.Call(&raw, method, args...); err != nil {
		t.Fatalf("%s: %v", method, err)
	}
	if out != nil {
		if err := json.Unmarshal(raw, out); err != nil {
			t.Fatalf("%s: decode %s: %v", method, raw, err)
		}
	}
}

// both runs method on both endpoints, requires the same answer and returns it.
func (n *npNode) both(t *testing.T, method string, args ...any) json.RawMessage {
	t.Helper()
	var std, prc json.RawMessage
	n.call(t, n.std, &std, method, args...)
	n.call(t, n.prc, &prc, method, args...)
	if string(std) != string(prc) {
		t.Fatalf("%s %v: the endpoints differ:\n standard      %.400s\n pre-confirmed %.400s", method, args, std, prc)
	}
	return prc
}

// signEcho signs a call of npEcho with data and nonce from testKey.
func (n *npNode) signEcho(t *testing.T, nonce uint64, data []byte) (*types.Transaction, hexutil.Bytes) {
	t.Helper()
	cfg := n.chain.Config()
	tx, err := types.SignNewTx(testKey, types.LatestSigner(cfg), &types.DynamicFeeTx{
		ChainID: cfg.ChainID, Nonce: nonce, To: &npEcho, Data: data, Gas: 100_000,
		GasFeeCap: big.NewInt(10 * params.GWei), GasTipCap: big.NewInt(params.GWei),
	})
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := tx.MarshalBinary()
	return tx, raw
}

// sendAsWallets sends count echo calls to the pre-confirmed endpoint as viem and ethers do:
// each takes its nonce from eth_getTransactionCount(from, "pending") just before it is sent.
func (n *npNode) sendAsWallets(t *testing.T, count int) []*types.Transaction {
	t.Helper()
	var sent []*types.Transaction
	for range count {
		var nonce hexutil.Uint64
		n.call(t, n.prc, &nonce, "eth_getTransactionCount", n.from, "pending")
		tx, raw := n.signEcho(t, uint64(nonce), []byte{byte(nonce)})
		n.call(t, n.prc, nil, "eth_sendRawTransaction", raw)
		sent = append(sent, tx)
	}
	return sent
}

// wsFrames is a raw WebSocket connection to an endpoint: notifications in the order the node
// wrote them.
type wsFrames struct {
	t    *testing.T
	conn *websocket.Conn
	id   int
}

type wsMessage struct {
	ID     *int            `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
	Method string `json:"method"`
	Params struct {
		Subscription string          `json:"subscription"`
		Result       json.RawMessage `json:"result"`
	} `json:"params"`
}

func dialFrames(t *testing.T, url string) *wsFrames {
	t.Helper()
	conn, _, err := websocket.Dial(context.Background(), "ws"+strings.TrimPrefix(url, "http"), nil)
	if err != nil {
		t.Fatal(err)
	}
	conn.SetReadLimit(1 << 24)
	t.Cleanup(func() { conn.CloseNow() })
	return &wsFrames{t: t, conn: conn}
}

// next reads the next message; a hang guard fails the test after 30 s.
func (w *wsFrames) next() wsMessage {
	w.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, data, err := w.conn.Read(ctx)
	if err != nil {
		w.t.Fatalf("websocket: %v", err)
	}
	var m wsMessage
	if err := json.Unmarshal(data, &m); err != nil {
		w.t.Fatalf("websocket: %s: %v", data, err)
	}
	return m
}

// subscribe starts a subscription and returns its ID; no notification can precede the
// answer (the node sends notifications only after it).
func (w *wsFrames) subscribe(args ...any) string {
	w.t.Helper()
	w.id++
	req, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": w.id, "method": "eth_subscribe", "params": args})
	if err := w.conn.Write(context.Background(), websocket.MessageText, req); err != nil {
		w.t.Fatal(err)
	}
	m := w.next()
	if m.ID == nil || *m.ID != w.id || m.Error != nil {
		w.t.Fatalf("eth_subscribe %v: %+v", args, m)
	}
	var id string
	if err := json.Unmarshal(m.Result, &id); err != nil {
		w.t.Fatal(err)
	}
	return id
}

// until reads notifications until done returns true for one, and returns them all.
func (w *wsFrames) until(done func(wsMessage) bool) []wsMessage {
	w.t.Helper()
	var got []wsMessage
	for {
		m := w.next()
		got = append(got, m)
		if done(m) {
			return got
		}
	}
}

type npHeader struct {
	Number     hexutil.Uint64 `json:"number"`
	Hash       common.Hash    `json:"hash"`
	ParentHash common.Hash    `json:"parentHash"`
	Timestamp  hexutil.Uint64 `json:"timestamp"`
}

// TestNoPreconfirmationsEndpoints checks the pre-confirmed endpoint of a chain without
// pre-confirmations against decisions.md "200 ms blocks": `pending` is the next block as
// forecast for every kind of read, answered as on the standard endpoint; transactions not yet
// sealed are not found, but the pending nonce counts the pool so that wallets send one after
// another; the pre-confirmation subscriptions deliver nothing while newHeads, logs and
// newPendingTransactions deliver each sealed block; eth_sendRawTransactionSync answers with
// the sealed receipt; and the dev methods work. On an OP Stack chain, then on one with Denim
// from genesis (200 ms time, whose forecast is the next 200 ms slot).
func TestNoPreconfirmationsEndpoints(t *testing.T) {
	for _, denim := range []bool{false, true} {
		name := "op"
		if denim {
			name = "denim"
		}
		t.Run(name, func(t *testing.T) { testNoPreconfirmations(t, denim) })
	}
}

func testNoPreconfirmations(t *testing.T, denim bool) {
	n := newNPNode(t, true, denim, 0)
	ctx := context.Background()
	if _, err := n.seq.Seal(ctx); err != nil { // block 1: the first Denim block, part 0
		t.Fatal(err)
	}
	ws := dialFrames(t, n.prcURL)
	subs := map[string]string{}
	for _, args := range [][]any{
		{"newHeads"}, {"logs", map[string]any{"address": npEcho}}, {"newPendingTransactions"},
		{"pendingLogs"}, {"newFlashblocks"}, {"newFlashblockTransactions", true},
	} {
		subs[ws.subscribe(args...)] = args[0].(string)
	}

	sent := n.sendAsWallets(t, 3)
	var nonce hexutil.Uint64
	if n.call(t, n.prc, &nonce, "eth_getTransactionCount", n.from, "pending"); nonce != 3 {
		t.Fatalf("pending nonce %d with three transactions in the pool, want 3", nonce)
	}
	if n.call(t, n.prc, &nonce, "eth_getTransactionCount", n.from, "latest"); nonce != 0 {
		t.Fatalf("pre-confirmed endpoint's latest nonce %d before any seal, want the sealed 0", nonce)
	}
	for _, tx := range sent {
		for _, q := range []string{"eth_getTransactionByHash", "eth_getTransactionReceipt"} {
			if got := n.both(t, q, tx.Hash()); string(got) != "null" {
				t.Fatalf("%s of an unsealed transaction: %.300s, want null", q, got)
			}
		}
		if got := n.both(t, "eth_getRawTransactionByHash", tx.Hash()); string(got) != `"0x"` {
			t.Fatalf("raw unsealed transaction: %s", got)
		}
	}

	// `pending` is the next block as forecast, as the standard endpoint answers it.
	var head npHeader
	n.call(t, n.prc, &head, "eth_getBlockByNumber", "latest", false)
	wantTime := uint64(head.Timestamp) + 1
	if denim {
		ms := n.chain.TimeMs(n.chain.Head())
		if ms == nil {
			t.Fatal("block 1 has no millisecond time")
		}
		wantTime, _ = oprollup.NextDenimTime(*ms/1000, uint16(*ms%1000))
	}
	var block struct {
		npHeader
		Transactions []json.RawMessage `json:"transactions"`
	}
	if err := json.Unmarshal(n.both(t, "eth_getBlockByNumber", "pending", true), &block); err != nil {
		t.Fatal(err)
	}
	if block.Number != head.Number+1 || block.ParentHash != head.Hash || uint64(block.Timestamp) != wantTime || len(block.Transactions) != 0 {
		t.Fatalf("pending block %d on %s at %d with %d transactions; want %d on %s at %d, none", block.Number, block.ParentHash, block.Timestamp, len(block.Transactions), head.Number+1, head.Hash, wantTime)
	}
	n.both(t, "eth_getHeaderByNumber", "pending")
	if string(n.both(t, "eth_getBalance", n.from, "pending")) != string(n.both(t, "eth_getBalance", n.from, "latest")) {
		t.Fatal("the balance at pending counts unsealed transactions")
	}
	var out hexutil.Bytes
	if err := json.Unmarshal(n.both(t, "eth_call", map[string]any{"data": hexutil.Bytes(npNumberTime)}, "pending"), &out); err != nil || len(out) != 64 {
		t.Fatalf("eth_call at pending: %x, %v", out, err)
	}
	if num, ts := new(big.Int).SetBytes(out[:32]).Uint64(), new(big.Int).SetBytes(out[32:]).Uint64(); num != uint64(head.Number)+1 || ts != wantTime {
		t.Fatalf("eth_call at pending runs in block %d at %d, want %d at %d", num, ts, head.Number+1, wantTime)
	}
	n.both(t, "eth_estimateGas", map[string]any{"from": n.from, "to": npEcho, "data": "0x01"}, "pending")
	n.both(t, "eth_feeHistory", "0x2", "pending", []float64{50})
	for _, f := range []map[string]any{{"fromBlock": "pending", "toBlock": "pending"}, {"fromBlock": "0x0", "toBlock": "pending"}} {
		if got := n.both(t, "eth_getLogs", f); string(got) != "[]" {
			t.Fatalf("eth_getLogs %v before the seal: %.300s, want []", f, got)
		}
	}
	var sim []struct {
		Number    hexutil.Uint64 `json:"number"`
		Timestamp hexutil.Uint64 `json:"timestamp"`
	}
	n.call(t, n.prc, &sim, "eth_simulateV1", map[string]any{"blockStateCalls": []any{map[string]any{"calls": []any{map[string]any{"to": npEcho}}}}}, "pending")
	if len(sim) != 1 || sim[0].Number != head.Number+1 || uint64(sim[0].Timestamp) != wantTime {
		t.Fatalf("eth_simulateV1 at pending: %+v, want block %d at %d", sim, head.Number+1, wantTime)
	}
	var pool struct {
		Pending map[string]map[string]json.RawMessage `json:"pending"`
	}
	if n.call(t, n.prc, &pool, "txpool_content"); len(pool.Pending[n.from.Hex()]) != 3 {
		t.Fatalf("txpool_content: %d of the sender's transactions pending, want 3", len(pool.Pending[n.from.Hex()]))
	}
	for _, q := range [][]any{{"dev_preconfirm"}, {"dev_seal", map[string]any{"transactions": []common.Hash{sent[0].Hash()}}}} {
		var rerr gethrpc.Error
		if err := n.prc.Call(nil, q[0].(string), q[1:]...); !errors.As(err, &rerr) || rerr.ErrorCode() != -32000 || !strings.Contains(err.Error(), "no pre-confirmations") {
			t.Fatalf("%s: %v, want -32000 naming the chain's lack of pre-confirmations", q[0], err)
		}
	}

	// The seal: each sealed block reaches newHeads, logs and newPendingTransactions; the
	// pre-confirmation subscriptions get nothing, before it or before the next one.
	var mined string
	n.call(t, n.prc, &mined, "evm_mine")
	sealed := n.chain.Head()
	if len(n.chain.BlockByNumber(sealed.Number.Uint64()).Transactions()) != 1+len(sent)+map[bool]int{true: 1}[denim] {
		t.Fatalf("block %d does not carry the pool's three transactions", sealed.Number)
	}
	n.call(t, n.prc, nil, "evm_mine") // the next block: nothing may come of its opening either
	var heads, logsSeen, pendingTxs int
	ws.until(func(m wsMessage) bool {
		switch kind := subs[m.Params.Subscription]; kind {
		case "newHeads":
			heads++
		case "logs":
			logsSeen++
		case "newPendingTransactions":
			pendingTxs++
		default:
			t.Fatalf("a %q notification on a chain without pre-confirmations: %.300s", kind, m.Params.Result)
		}
		return heads == 2
	})
	if logsSeen != 3 || pendingTxs != 3 {
		t.Fatalf("for the sealed block: %d logs and %d pending transactions notified, want 3 and 3", logsSeen, pendingTxs)
	}
	for _, tx := range sent {
		var r struct {
			BlockHash common.Hash `json:"blockHash"`
		}
		if err := json.Unmarshal(n.both(t, "eth_getTransactionReceipt", tx.Hash()), &r); err != nil || r.BlockHash != sealed.Hash() {
			t.Fatalf("receipt of a sealed transaction: block %s, %v; want %s", r.BlockHash, err, sealed.Hash())
		}
	}
	if n.call(t, n.prc, &nonce, "eth_getTransactionCount", n.from, "latest"); nonce != 3 {
		t.Fatalf("latest nonce %d after the seal, want 3", nonce)
	}

	// eth_sendRawTransactionSync answers with the receipt of the sealed, written block.
	tx, raw := n.signEcho(t, 3, []byte("sync"))
	type syncAnswer struct {
		receipt json.RawMessage
		err     error
	}
	answer := make(chan syncAnswer, 1)
	go func() {
		var r json.RawMessage
		err := n.prc.Call(&r, "eth_sendRawTransactionSync", raw)
		answer <- syncAnswer{r, err}
	}()
	deadline := time.Now().Add(30 * time.Second) // a hang guard, not a measurement
	for n.pool.Get(tx.Hash()) == nil {
		if time.Now().After(deadline) {
			t.Fatal("the synchronous send never reached the pool")
		}
		time.Sleep(time.Millisecond)
	}
	n.call(t, n.prc, nil, "evm_mine")
	got := <-answer
	if got.err != nil {
		t.Fatal(got.err)
	}
	var r struct {
		BlockHash   common.Hash    `json:"blockHash"`
		BlockNumber hexutil.Uint64 `json:"blockNumber"`
		Status      hexutil.Uint64 `json:"status"`
	}
	if err := json.Unmarshal(got.receipt, &r); err != nil {
		t.Fatal(err)
	}
	if r.Status != 1 || r.BlockHash == (common.Hash{}) || n.chain.HeaderByNumber(uint64(r.BlockNumber)).Hash() != r.BlockHash {
		t.Fatalf("synchronous receipt: %s, want the sealed block's", got.receipt)
	}
	_, raw = n.signEcho(t, 4, []byte("late"))
	var rerr gethrpc.Error
	if err := n.prc.Call(nil, "eth_sendRawTransactionSync", raw, 1); !errors.As(err, &rerr) || rerr.ErrorCode() != 4 {
		t.Fatalf("eth_sendRawTransactionSync without a seal within 1 ms: %v, want code 4", err)
	}

	// Cheats are visible at latest at once; snapshots take the chain back.
	var snapID string
	n.call(t, n.prc, &snapID, "evm_snapshot")
	rich := common.Address{0x12}
	n.call(t, n.prc, nil, "anvil_setBalance", rich, "0x1234")
	if got := n.both(t, "eth_getBalance", rich, "latest"); string(got) != `"0x1234"` {
		t.Fatalf("balance after anvil_setBalance: %s", got)
	}
	n.call(t, n.prc, nil, "evm_mine")
	var reverted bool
	if n.call(t, n.prc, &reverted, "evm_revert", snapID); !reverted {
		t.Fatal("evm_revert: false")
	}
	if got := n.both(t, "eth_getBalance", rich, "latest"); string(got) != `"0x0"` {
		t.Fatalf("balance after evm_revert: %s", got)
	}
	if denim {
		checkServeForecast(t, n)
	}
}

// checkServeForecast reads n's chain without its writer (serve mode: no block in progress to
// take the next block's context from): after a Denim block, the forecast of `pending` is
// still the next 200 ms slot, not the next second.
func checkServeForecast(t *testing.T, n *npNode) {
	t.Helper()
	srv := httptest.NewServer(rpc.NewServer(rpc.Config{}, api.New(api.Config{Pending: true}, api.Backend{Chain: n.chain}).Service()))
	defer srv.Close()
	c, err := gethrpc.Dial(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	head := n.chain.Head()
	ms := n.chain.TimeMs(head)
	if ms == nil || *ms%1000 == 800 {
		t.Fatalf("head %d at %v ms: want a Denim block whose next slot is in the same second", head.Number, ms)
	}
	want, _ := oprollup.NextDenimTime(*ms/1000, uint16(*ms%1000))
	var forecast npHeader
	if n.call(t, c, &forecast, "eth_getBlockByNumber", "pending", false); uint64(forecast.Timestamp) != want || uint64(forecast.Number) != head.Number.Uint64()+1 {
		t.Fatalf("serve mode's pending: block %d at %d, want %d at %d", forecast.Number, forecast.Timestamp, head.Number.Uint64()+1, want)
	}
}

// TestPreconfirmationsShownByDefault is the same chain with pre-confirmations: the
// pre-confirmed endpoint shows what the chain without them keeps back.
func TestPreconfirmationsShownByDefault(t *testing.T) {
	n := newNPNode(t, false, false, 0)
	ws := dialFrames(t, n.prcURL)
	flashblocks := ws.subscribe("newFlashblocks")
	tx := n.sendAsWallets(t, 1)[0]
	n.call(t, n.prc, nil, "dev_preconfirm")
	ws.until(func(m wsMessage) bool {
		return m.Params.Subscription == flashblocks && strings.Contains(string(m.Params.Result), tx.Hash().Hex()[2:])
	})
	var found json.RawMessage
	if n.call(t, n.prc, &found, "eth_getTransactionByHash", tx.Hash()); string(found) == "null" {
		t.Fatal("a pre-confirmed transaction is not found on the pre-confirmed endpoint")
	}
	var block struct {
		Transactions []common.Hash `json:"transactions"`
	}
	if n.call(t, n.prc, &block, "eth_getBlockByNumber", "pending", false); len(block.Transactions) != 2 {
		t.Fatalf("pending block: %d transactions, want the deposit and the pre-confirmed one", len(block.Transactions))
	}
}

// TestNoPreconfirmationsRapidSends sends as wallets do, each nonce read at `pending` just
// before its send, while the timer seals a Denim block every 200 ms, so that sends meet the
// pool, the block being built and the block being written: every transaction is taken, and
// sealed in nonce order, and a synchronous send answers with a sealed receipt.
func TestNoPreconfirmationsRapidSends(t *testing.T) {
	n := newNPNode(t, true, true, 200*time.Millisecond)
	sent := n.sendAsWallets(t, 40)
	tx, raw := n.signEcho(t, uint64(len(sent)), []byte("sync"))
	var r struct {
		BlockHash   common.Hash    `json:"blockHash"`
		BlockNumber hexutil.Uint64 `json:"blockNumber"`
	}
	n.call(t, n.prc, &r, "eth_sendRawTransactionSync", raw)
	if h := n.chain.HeaderByNumber(uint64(r.BlockNumber)); h == nil || h.Hash() != r.BlockHash {
		t.Fatalf("synchronous receipt in block %d %s: not the sealed block", r.BlockNumber, r.BlockHash)
	}
	sent = append(sent, tx)
	for i, tx := range sent { // the synchronous one is sealed, so are those before it
		_, loc, ok := n.chain.Transaction(tx.Hash())
		if !ok || tx.Nonce() != uint64(i) {
			t.Fatalf("transaction %d (nonce %d) sealed %v", i, tx.Nonce(), ok)
		}
		if i > 0 {
			if _, prev, _ := n.chain.Transaction(sent[i-1].Hash()); prev.BlockNumber > loc.BlockNumber {
				t.Fatalf("nonce %d sealed in block %d, before nonce %d in block %d", i, loc.BlockNumber, i-1, prev.BlockNumber)
			}
		}
	}
}

// TestHiddenBlockCountsForNonces writes a hidden block in progress by hand, as the sequencer
// of a chain without pre-confirmations holds one between taking transactions from the pool
// and their block being written: its transaction is found nowhere, but the pending nonce
// counts it on both endpoints, a send that reuses its nonce is refused and the next nonce is
// taken, so wallets that send while a block is being sealed do not collide.
func TestHiddenBlockCountsForNonces(t *testing.T) {
	ctx := context.Background()
	from := crypto.PubkeyToAddress(testKey.PublicKey)
	g := chain.DevGenesis(chain.DefaultChainID, []common.Address{from})
	g.Alloc[npEcho] = types.Account{Code: npCode}
	c, err := chain.Open(chain.Config{DataDir: t.TempDir(), Genesis: g})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := c.Close(); err != nil {
			t.Error(err)
		}
	}()
	pre, pool := preconf.New(c), txpool.New(c.Config(), txpool.Config{})
	n := &npNode{chain: c, pre: pre, pool: pool, from: from}
	b := api.Backend{Chain: c, Preconf: pre, Pool: pool}
	for _, s := range []struct {
		pending bool
		to      **gethrpc.Client
	}{{false, &n.std}, {true, &n.prc}} {
		srv := httptest.NewServer(rpc.NewServer(rpc.Config{}, api.New(api.Config{Pending: s.pending}, b).Service()))
		defer srv.Close()
		if *s.to, err = gethrpc.Dial(srv.URL); err != nil {
			t.Fatal(err)
		}
		defer (*s.to).Close()
	}

	head := c.Head()
	if _, err := pre.Open(ctx, preconf.NextAttributes(c.Config(), head, head.Time+1, common.Address{}, nil), preconf.PublishOptions{Hidden: true}); err != nil {
		t.Fatal(err)
	}
	taken, raw0 := n.signEcho(t, 0, nil)
	batch, err := pre.Begin()
	if err != nil {
		t.Fatal(err)
	}
	if err := batch.Add(ctx, taken); err != nil {
		t.Fatal(err)
	}
	if _, err := batch.Commit(ctx, preconf.PublishOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := n.both(t, "eth_getTransactionByHash", taken.Hash()); string(got) != "null" {
		t.Fatalf("a transaction of the hidden block is found: %.300s", got)
	}
	if got := n.both(t, "eth_getBlockByNumber", "pending", false); strings.Contains(string(got), taken.Hash().Hex()[2:]) {
		t.Fatalf("the pending block shows the hidden block's transaction: %.300s", got)
	}
	for _, q := range []struct {
		block string
		want  uint64
	}{{"pending", 1}, {"latest", 0}} {
		var nonce hexutil.Uint64
		if err := json.Unmarshal(n.both(t, "eth_getTransactionCount", from, q.block), &nonce); err != nil || uint64(nonce) != q.want {
			t.Fatalf("nonce at %s: %d (%v), want %d", q.block, nonce, err, q.want)
		}
	}
	if err := n.prc.Call(nil, "eth_sendRawTransaction", raw0); err == nil || !strings.Contains(err.Error(), "nonce too low") {
		t.Fatalf("a send of the hidden block's nonce: %v, want nonce too low", err)
	}
	_, raw1 := n.signEcho(t, 1, nil)
	n.call(t, n.prc, nil, "eth_sendRawTransaction", raw1)
}
