package main

import (
	"bytes"
	"context"
	"log/slog"
	"math/big"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
	gethrpc "github.com/ethereum/go-ethereum/rpc"

	"github.com/flashrpc/flashrpc/internal/flashblocks"
)

// The end-to-end tests of the pre-confirmation streams: the flashblocks feed, the pendingLogs,
// newFlashblockTransactions and newFlashblocks subscriptions, retraction and
// eth_sendRawTransactionSync, over real WebSocket connections to a node in manual mode.

// recvTimeout only guards against a hang; nothing here measures time.
const recvTimeout = 10 * time.Second

func wsURL(httpURL string) string { return strings.Replace(httpURL, "http://", "ws://", 1) }

func recv[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(recvTimeout):
		t.Fatalf("no %s", what)
		panic("unreachable")
	}
}

func dialWS(t *testing.T, httpURL string) *gethrpc.Client {
	t.Helper()
	c, err := gethrpc.Dial(wsURL(httpURL))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

func subscribe[T any](t *testing.T, c *gethrpc.Client, kind string, args ...any) chan T {
	t.Helper()
	ch := make(chan T, 1024)
	sub, err := c.EthSubscribe(context.Background(), ch, append([]any{kind}, args...)...)
	if err != nil {
		t.Fatalf("eth_subscribe %s: %v", kind, err)
	}
	t.Cleanup(sub.Unsubscribe)
	return ch
}

// deployEmitter deploys logInit (one LOG1(logTopic) per call) from dev account 0 in its own
// sealed block and returns its address.
func deployEmitter(t *testing.T, tn *testNode, init []byte) common.Address {
	t.Helper()
	key := tn.Accounts()[0].Key
	nonce, err := tn.pre.PendingNonceAt(context.Background(), addressOf(key))
	if err != nil {
		t.Fatal(err)
	}
	tx := signTx(t, key, big.NewInt(1337), nonce, nil, new(big.Int), 300_000, init)
	if err := tn.pre.SendTransaction(context.Background(), tx); err != nil {
		t.Fatal(err)
	}
	tn.preconfirm(t)
	tn.seal(t)
	return crypto.CreateAddress(addressOf(key), nonce)
}

// callFrom sends a call to contract from dev account i with the next pending nonce.
func callFrom(t *testing.T, tn *testNode, i int, contract common.Address, data []byte) *types.Transaction {
	t.Helper()
	key := tn.Accounts()[i].Key
	nonce, err := tn.pre.PendingNonceAt(context.Background(), addressOf(key))
	if err != nil {
		t.Fatal(err)
	}
	gas := uint64(60_000 + 16*len(data))
	tx := signTx(t, key, big.NewInt(1337), nonce, &contract, new(big.Int), gas, data)
	if err := tn.pre.SendTransaction(context.Background(), tx); err != nil {
		t.Fatalf("send from account %d: %v", i, err)
	}
	return tx
}

// TestFeed follows two blocks on the flashblocks feed, in JSON and in brotli: index 0 carries
// the base, later indices the transactions they add, and the sealed block is the base, every
// diff's transactions and the last diff.
func TestFeed(t *testing.T) {
	for _, compressed := range []bool{false, true} {
		t.Run(map[bool]string{false: "json", true: "brotli"}[compressed], func(t *testing.T) {
			ctx := context.Background()
			o := testOptions(t.TempDir())
			o.feed.Brotli = compressed
			tn := startTestNode(t, o)
			feed, err := flashblocks.Dial(ctx, tn.Feed().URL)
			if err != nil {
				t.Fatal(err)
			}
			defer feed.Close()
			// Block 1 opened at start; the feed replays its index 0 to a new consumer.
			first := nextPayload(t, feed, compressed)
			if first.Index != 0 || first.Base == nil || uint64(first.Base.BlockNumber) != 1 || first.Base.ParentHash != tn.Chain().Genesis().Hash() {
				t.Fatalf("first payload: %+v", first)
			}
			to := common.HexToAddress("0x00000000000000000000000000000000000f33d0")
			var sent []common.Hash
			callFrom(t, tn, 0, to, nil) // index 1: one transfer
			tn.preconfirm(t)
			callFrom(t, tn, 1, to, nil) // index 2: two
			callFrom(t, tn, 2, to, nil)
			tn.preconfirm(t)
			tn.seal(t)
			sealed, err := tn.std.BlockByNumber(ctx, big.NewInt(1))
			if err != nil {
				t.Fatal(err)
			}
			for _, tx := range sealed.Transactions() {
				sent = append(sent, tx.Hash())
			}
			payloads := []*flashblocks.Payload{first}
			for range 2 {
				payloads = append(payloads, nextPayload(t, feed, compressed))
			}
			var fromFeed []common.Hash
			for i, p := range payloads {
				if p.PayloadID != first.PayloadID || p.Index != uint64(i) || (p.Base != nil) != (i == 0) || p.Metadata.BlockNumber != 1 {
					t.Fatalf("payload %d: id %s index %d base %v block %d", i, p.PayloadID, p.Index, p.Base != nil, p.Metadata.BlockNumber)
				}
				for _, enc := range p.Diff.Transactions {
					var tx types.Transaction
					if err := tx.UnmarshalBinary(enc); err != nil {
						t.Fatal(err)
					}
					fromFeed = append(fromFeed, tx.Hash())
				}
			}
			if len(payloads[1].Diff.Transactions) != 1 || len(payloads[2].Diff.Transactions) != 2 {
				t.Fatalf("diffs carry %d and %d transactions, want 1 and 2", len(payloads[1].Diff.Transactions), len(payloads[2].Diff.Transactions))
			}
			if !slices.Equal(fromFeed, sent) {
				t.Fatalf("feed transactions %v, sealed %v", fromFeed, sent)
			}
			last := payloads[2].Diff
			if last.BlockHash != sealed.Hash() || last.StateRoot != sealed.Root() || last.ReceiptsRoot != sealed.ReceiptHash() ||
				uint64(last.GasUsed) != sealed.GasUsed() || last.LogsBloom != sealed.Bloom() || last.WithdrawalsRoot != *sealed.Header().WithdrawalsHash {
				t.Fatalf("last diff %+v does not describe the sealed block %s", last, sealed.Hash())
			}
			b := first.Base
			if uint64(b.Timestamp) != sealed.Time() || uint64(b.GasLimit) != sealed.GasLimit() || b.FeeRecipient != sealed.Coinbase() ||
				!bytes.Equal(b.ExtraData, sealed.Extra()) || b.BaseFeePerGas.ToInt().Cmp(sealed.BaseFee()) != 0 || b.PrevRandao != sealed.MixDigest() {
				t.Fatalf("base %+v does not describe the sealed block", b)
			}
			next := nextPayload(t, feed, compressed)
			if next.Index != 0 || next.Base == nil || next.Base.ParentHash != sealed.Hash() || next.PayloadID == first.PayloadID {
				t.Fatalf("block 2 opens with %+v", next)
			}
		})
	}
}

func nextPayload(t *testing.T, c *flashblocks.Client, compressed bool) *flashblocks.Payload {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), recvTimeout)
	defer cancel()
	raw, err := c.NextRaw(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if isJSON := raw[0] == '{'; isJSON == compressed {
		t.Fatalf("frame is JSON text: %v, want %v", isJSON, !compressed)
	}
	p, err := flashblocks.Decode(raw)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// pendingTx is the part of a newFlashblockTransactions full object the tests read.
type pendingTx struct {
	Hash        common.Hash     `json:"hash"`
	BlockHash   *common.Hash    `json:"blockHash"`
	BlockNumber *hexutil.Big    `json:"blockNumber"`
	Index       *hexutil.Uint64 `json:"transactionIndex"`
	Logs        []types.Log     `json:"logs"`
}

// pendingBlock is the part of a newFlashblocks block the tests read.
type pendingBlock struct {
	Number       hexutil.Uint64 `json:"number"`
	Hash         common.Hash    `json:"hash"`
	ParentHash   common.Hash    `json:"parentHash"`
	Transactions []pendingTx    `json:"transactions"`
}

// TestPendingSubscriptions subscribes to every pre-confirmation stream and checks what two
// pre-confirmations with three log-emitting calls deliver: counts, order and shapes.
func TestPendingSubscriptions(t *testing.T) {
	ctx := context.Background()
	tn := startTestNode(t, testOptions(t.TempDir()))
	contract := deployEmitter(t, tn, logInit)
	ws := dialWS(t, tn.preURL)
	pendingLogs := subscribe[types.Log](t, ws, "pendingLogs", map[string]any{"address": contract})
	otherLogs := subscribe[types.Log](t, ws, "pendingLogs", map[string]any{"address": common.Address{1}})
	hashes := subscribe[common.Hash](t, ws, "newFlashblockTransactions")
	full := subscribe[pendingTx](t, ws, "newFlashblockTransactions", true)
	blocks := subscribe[pendingBlock](t, ws, "newFlashblocks")

	// The standard endpoint has none of them.
	std := dialWS(t, tn.stdURL)
	if _, err := std.EthSubscribe(ctx, make(chan types.Log), "pendingLogs"); err == nil || !strings.Contains(err.Error(), "no \"pendingLogs\" subscription") {
		t.Fatalf("pendingLogs on the standard endpoint: %v", err)
	}

	var txs []*types.Transaction
	txs = append(txs, callFrom(t, tn, 1, contract, nil), callFrom(t, tn, 2, contract, nil))
	tn.preconfirm(t) // index 1: two calls
	txs = append(txs, callFrom(t, tn, 3, contract, nil))
	tn.preconfirm(t) // index 2: one call
	pending, err := tn.pre.BlockByNumber(ctx, pendingTag)
	if err != nil {
		t.Fatal(err)
	}
	open := depositCount(pending.Transactions()) // the L1-attributes deposit comes first

	for i, tx := range txs {
		l := recv(t, pendingLogs, "pendingLogs notification")
		if l.TxHash != tx.Hash() || l.TxIndex != uint(open+i) || l.Index != uint(i) || l.Address != contract || l.Removed ||
			l.BlockHash != (common.Hash{}) || l.BlockNumber != 2 || l.Topics[0] != logTopic {
			t.Fatalf("pending log %d: %+v", i, l)
		}
		if h := recv(t, hashes, "transaction hash"); h != tx.Hash() {
			t.Fatalf("transaction %d: hash %s, want %s", i, h, tx.Hash())
		}
		f := recv(t, full, "full transaction")
		if f.Hash != tx.Hash() || f.BlockHash != nil || f.BlockNumber.ToInt().Uint64() != 2 || uint64(*f.Index) != uint64(open+i) ||
			len(f.Logs) != 1 || f.Logs[0].TxHash != tx.Hash() {
			t.Fatalf("full transaction %d: %+v", i, f)
		}
	}
	// newFlashblocks: the pending block after indices 1 and 2.
	for i, want := range []int{2, 3} {
		b := recv(t, blocks, "newFlashblocks notification")
		if b.Number != 2 || len(b.Transactions) != open+want || b.ParentHash != tn.Chain().Head().Hash() {
			t.Fatalf("flashblock %d: number %d, %d txs, parent %s", i, b.Number, len(b.Transactions), b.ParentHash)
		}
		for k, tx := range b.Transactions[open:] {
			if tx.Hash != txs[k].Hash() || tx.BlockHash != nil || uint64(*tx.Index) != uint64(open+k) {
				t.Fatalf("flashblock %d, transaction %d: %+v", i, k, tx)
			}
		}
		if i == 1 && b.Hash != pending.Hash() {
			t.Fatalf("last flashblock hash %s, pending block %s", b.Hash, pending.Hash())
		}
	}
	for name, ch := range map[string]int{"pendingLogs": len(pendingLogs), "filtered pendingLogs": len(otherLogs), "hashes": len(hashes), "full": len(full), "blocks": len(blocks)} {
		if ch != 0 {
			t.Fatalf("%s: %d notifications too many", name, ch)
		}
	}
}

// TestRetraction pre-confirms three log-emitting calls, then seals the block without the
// middle one: pendingLogs subscribers get its log and the moved third one again with removed:
// true, then the third as sealed; logs subscribers on the pre-confirmed endpoint get the
// removed copies before the sealed logs; the standard endpoint's see the sealed logs only; and
// nothing shows the dropped transaction or its log again.
func TestRetraction(t *testing.T) {
	ctx := context.Background()
	tn := startTestNode(t, testOptions(t.TempDir()))
	contract := deployEmitter(t, tn, logInit)
	filter := map[string]any{"address": contract}
	pendingLogs := subscribe[types.Log](t, dialWS(t, tn.preURL), "pendingLogs", filter)
	preLogs := subscribe[types.Log](t, dialWS(t, tn.preURL), "logs", filter)
	stdLogs := subscribe[types.Log](t, dialWS(t, tn.stdURL), "logs", filter)

	txs := []*types.Transaction{callFrom(t, tn, 1, contract, nil), callFrom(t, tn, 2, contract, nil), callFrom(t, tn, 3, contract, nil)}
	tn.preconfirm(t)
	var sealed struct{ Hash common.Hash }
	if err := tn.preRaw.Call(&sealed, "dev_seal", map[string]any{"transactions": []common.Hash{txs[0].Hash(), txs[2].Hash()}}); err != nil {
		t.Fatal(err)
	}
	sentinel := callFrom(t, tn, 4, contract, nil) // block 3: proves nothing else came before it
	tn.preconfirm(t)
	tn.seal(t)

	type want struct {
		tx      *types.Transaction
		index   uint
		removed bool
		sealed  bool // blockHash is block 2's hash, not the zero hash
	}
	check := func(name string, ch chan types.Log, wants []want) {
		t.Helper()
		for i, w := range wants {
			l := recv(t, ch, name+" notification")
			blockHash := common.Hash{}
			if w.sealed {
				blockHash = sealed.Hash
			}
			if w.tx == sentinel {
				if l.TxHash != sentinel.Hash() || l.Removed {
					t.Fatalf("%s %d: %+v, want the sentinel", name, i, l)
				}
				continue
			}
			if l.TxHash != w.tx.Hash() || l.Index != w.index || l.Removed != w.removed || l.BlockHash != blockHash || l.BlockNumber != 2 {
				t.Fatalf("%s %d: got tx %s index %d removed %v blockHash %s; want tx %s index %d removed %v blockHash %s",
					name, i, l.TxHash, l.Index, l.Removed, l.BlockHash, w.tx.Hash(), w.index, w.removed, blockHash)
			}
		}
	}
	check("pendingLogs", pendingLogs, []want{
		{tx: txs[0], index: 0}, {tx: txs[1], index: 1}, {tx: txs[2], index: 2}, // pre-confirmed
		{tx: txs[1], index: 1, removed: true}, {tx: txs[2], index: 2, removed: true}, // retracted
		{tx: txs[2], index: 1, sealed: true}, // as sealed
		{tx: sentinel},
	})
	check("pre-confirmed logs", preLogs, []want{
		{tx: txs[1], index: 1, removed: true}, {tx: txs[2], index: 2, removed: true},
		{tx: txs[0], index: 0, sealed: true}, {tx: txs[2], index: 1, sealed: true},
		{tx: sentinel},
	})
	check("standard logs", stdLogs, []want{
		{tx: txs[0], index: 0, sealed: true}, {tx: txs[2], index: 1, sealed: true},
		{tx: sentinel},
	})

	// The dropped transaction and its log are gone everywhere.
	for name, c := range map[string]*ethclient.Client{"standard": tn.std, "pre-confirmed": tn.pre} {
		found, err := c.FilterLogs(ctx, ethereum.FilterQuery{Addresses: []common.Address{contract}, FromBlock: big.NewInt(0), ToBlock: pendingTag})
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range found {
			if l.TxHash == txs[1].Hash() || l.Removed {
				t.Fatalf("%s: eth_getLogs returns retracted log %+v", name, l)
			}
		}
		if len(found) != 3 {
			t.Fatalf("%s: %d logs, want 3 (two sealed in block 2, the sentinel)", name, len(found))
		}
		if _, err := c.TransactionReceipt(ctx, txs[1].Hash()); err != ethereum.NotFound {
			t.Fatalf("%s: receipt of the dropped transaction: %v", name, err)
		}
	}
	// An unknown transaction in dev_seal's list is invalid params.
	var res any
	err := tn.preRaw.Call(&res, "dev_seal", map[string]any{"transactions": []common.Hash{txs[1].Hash()}})
	if rpcErr, ok := err.(gethrpc.Error); !ok || rpcErr.ErrorCode() != -32602 {
		t.Fatalf("dev_seal with a transaction that is not pre-confirmed: %v", err)
	}
}

// lockedBuffer collects the node's log lines for inspection.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// startLoggedTestNode is startTestNode with the node's log lines kept.
func startLoggedTestNode(t *testing.T, o *devOptions) (*testNode, *lockedBuffer) {
	t.Helper()
	logs := new(lockedBuffer)
	tn := startTestNodeWithLogger(t, o, slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelWarn})))
	return tn, logs
}

// echoInit deploys runtime code that emits LOG1(logTopic) with the call data as log data.
var echoInit = func() []byte {
	runtime := append(append([]byte{0x36, 0x5f, 0x5f, 0x37, 0x7f}, logTopic[:]...), 0x36, 0x5f, 0xa1, 0x00)
	return append([]byte{0x60, byte(len(runtime)), 0x60, 12, 0x5f, 0x39, 0x60, byte(len(runtime)), 0x5f, 0xf3, 0x00, 0x00}, runtime...)
}()

// TestSlowSubscriber connects a subscriber that never reads its notifications next to one
// that reads everything. The slow one is disconnected with a logged reason; the fast one gets
// every notification, and pre-confirmations go on.
func TestSlowSubscriber(t *testing.T) {
	ctx := context.Background()
	o := testOptions(t.TempDir())
	o.RPC.WSSendQueueBytes = 1 << 20
	o.RPC.WSSlowConsumerTimeout = 500 * time.Millisecond
	tn, logs := startLoggedTestNode(t, o)
	contract := deployEmitter(t, tn, echoInit)

	// The slow subscriber: a raw WebSocket that subscribes, reads the answer, then never reads
	// again while its socket buffers and its queue fill up. (go-ethereum's client would keep
	// reading into memory.)
	slow, _, err := websocket.Dial(ctx, wsURL(tn.preURL), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer slow.CloseNow()
	if err := slow.Write(ctx, websocket.MessageText, []byte(`{"jsonrpc":"2.0","id":1,"method":"eth_subscribe","params":["newFlashblocks"]}`)); err != nil {
		t.Fatal(err)
	}
	if _, answer, err := slow.Read(ctx); err != nil || !bytes.Contains(answer, []byte(`"result"`)) {
		t.Fatalf("slow subscriber's eth_subscribe: %s %v", answer, err)
	}
	fast := subscribe[types.Log](t, dialWS(t, tn.preURL), "pendingLogs", map[string]any{"address": contract})

	data := make([]byte, 64<<10) // each pending block grows by a 64 KiB transaction: megabytes soon
	const most = 300
	rounds := 0
	for ; rounds < most && !strings.Contains(logs.String(), "slow consumer"); rounds++ {
		tx := callFrom(t, tn, 1, contract, data)
		tn.preconfirm(t)
		if l := recv(t, fast, "fast subscriber's log"); l.TxHash != tx.Hash() || len(l.Data) != len(data) {
			t.Fatalf("round %d: fast subscriber got %s, want %s", rounds, l.TxHash, tx.Hash())
		}
		if rounds%40 == 39 {
			tn.seal(t) // keep blocks within their gas limit
		}
	}
	if !strings.Contains(logs.String(), "slow consumer") {
		t.Fatalf("the slow subscriber was not disconnected after %d rounds; node log:\n%s", rounds, logs.String())
	}
	// Pre-confirmations and the fast subscriber go on.
	tx := callFrom(t, tn, 1, contract, nil)
	tn.preconfirm(t)
	if l := recv(t, fast, "log after the disconnect"); l.TxHash != tx.Hash() {
		t.Fatalf("after the disconnect: %s, want %s", l.TxHash, tx.Hash())
	}
	t.Logf("slow subscriber disconnected after %d rounds", rounds)
}
