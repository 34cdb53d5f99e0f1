package main

import (
	"context"
	"encoding/json"
	"math/big"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	gethrpc "github.com/ethereum/go-ethereum/rpc"

	"github.com/flashrpc/flashrpc/internal/oprollup"
)

// forecastBlock is what these tests read of a `pending` block.
type forecastBlock struct {
	Number       hexutil.Uint64 `json:"number"`
	ParentHash   common.Hash    `json:"parentHash"`
	Timestamp    hexutil.Uint64 `json:"timestamp"`
	Transactions []common.Hash  `json:"transactions"`
}

// wantForecastPending checks that both endpoints of replica r answer `pending` with the same
// block, the next one as forecast: number head + 1 on top of the head, no transactions. It
// returns that block.
func (r *testReplica) wantForecastPending(t *testing.T, what string) forecastBlock {
	t.Helper()
	raw := sameJSON(t, r.stdRaw, r.preRaw, "eth_getBlockByNumber", "pending", false)
	var b forecastBlock
	if err := json.Unmarshal(raw, &b); err != nil {
		t.Fatalf("%s: pending block %s: %v", what, raw, err)
	}
	head := r.Chain().Heads().Latest
	if uint64(b.Number) != head.Number.Uint64()+1 || b.ParentHash != head.Hash() || len(b.Transactions) != 0 {
		t.Fatalf("%s: pending is block %d on %s with %d transactions; want %d on the head %s with none",
			what, b.Number, b.ParentHash, len(b.Transactions), head.Number.Uint64()+1, head.Hash())
	}
	return b
}

// TestFollowWithoutFeedForecastsPending runs a replica without a feed of a primary that
// pre-confirms: it shows none of the primary's pre-confirmations, and both of its endpoints
// answer as on a chain without pre-confirmations: `pending` is the block after its head as
// forecast (no transactions), the pending nonce is the sealed one, `pending` logs are the
// sealed ones and a pendingLogs subscription hears nothing while the sealed log arrives on
// `logs`.
func TestFollowWithoutFeedForecastsPending(t *testing.T) {
	ctx := context.Background()
	tn := startTestNode(t, testOptions(t.TempDir()))
	keys := testOptionsAccounts(t)
	chainID := tn.Chain().Config().ChainID
	from := addressOf(keys[0])
	contract := crypto.CreateAddress(from, 0)
	if err := tn.pre.SendTransaction(ctx, signTx(t, keys[0], chainID, 0, nil, big.NewInt(0), 200_000, logInit)); err != nil {
		t.Fatal(err)
	}
	tn.preconfirm(t)
	tn.seal(t)

	o := replicaOptions(tn, t.TempDir())
	o.feedURL = ""
	r := startTestReplica(t, o)
	head := tn.Chain().Head().Number.Uint64()
	waitFor(t, "the replica at the primary's head", func() bool { return r.head() == head })
	r.wantForecastPending(t, "at the head")

	ws, err := gethrpc.Dial("ws" + strings.TrimPrefix(r.preURL, "http"))
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	pendingLogs, sealedLogs := make(chan types.Log, 4), make(chan types.Log, 4)
	filter := map[string]any{"address": contract}
	pendingSub, err := ws.EthSubscribe(ctx, pendingLogs, "pendingLogs", filter)
	if err != nil {
		t.Fatal(err)
	}
	defer pendingSub.Unsubscribe()
	sealedSub, err := ws.EthSubscribe(ctx, sealedLogs, "logs", filter)
	if err != nil {
		t.Fatal(err)
	}
	defer sealedSub.Unsubscribe()

	// A transaction that logs, pre-confirmed on the primary: nothing of it on the replica.
	tx := signTx(t, keys[0], chainID, 1, &contract, big.NewInt(0), 100_000, nil)
	if err := tn.pre.SendTransaction(ctx, tx); err != nil {
		t.Fatal(err)
	}
	tn.preconfirm(t)
	if n, err := tn.pre.PendingNonceAt(ctx, from); err != nil || n != 2 {
		t.Fatalf("the primary's pending nonce: %d, %v; want 2", n, err)
	}
	r.wantForecastPending(t, "while the primary pre-confirms")
	for _, c := range []*gethrpc.Client{r.stdRaw, r.preRaw} {
		var nonce hexutil.Uint64
		if err := c.Call(&nonce, "eth_getTransactionCount", from, "pending"); err != nil {
			t.Fatal(err)
		}
		if nonce != 1 {
			t.Fatalf("the replica's pending nonce: %d, want 1 (the sealed one)", nonce)
		}
	}
	logs := sameJSON(t, r.stdRaw, r.preRaw, "eth_getLogs", map[string]any{"fromBlock": "0x0", "toBlock": "pending", "address": contract})
	if string(logs) != "[]" {
		t.Fatalf("pending logs before the seal: %s, want none", logs)
	}

	tn.seal(t)
	head = tn.Chain().Head().Number.Uint64()
	waitFor(t, "the replica at the primary's head", func() bool { return r.head() == head })
	select {
	case l := <-sealedLogs:
		if l.TxHash != tx.Hash() {
			t.Fatalf("sealed log of %s, want %s", l.TxHash, tx.Hash())
		}
	case err := <-sealedSub.Err():
		t.Fatal(err)
	}
	select {
	case l := <-pendingLogs:
		t.Fatalf("pendingLogs delivered a log of %s on a replica without a feed", l.TxHash)
	case err := <-pendingSub.Err():
		t.Fatal(err)
	default:
	}
	r.wantForecastPending(t, "after the seal")
	logs = sameJSON(t, r.stdRaw, r.preRaw, "eth_getLogs", map[string]any{"fromBlock": "0x0", "toBlock": "pending", "address": contract})
	if !strings.Contains(string(logs), tx.Hash().Hex()) {
		t.Fatalf("pending logs after the seal: %s, want the sealed log of %s", logs, tx.Hash())
	}
}

// TestFollowDenimForecastsPending runs a replica without a feed of a Denim primary (a block
// every 200 ms, no pre-confirmations): once the primary stops sealing, both of its endpoints
// answer `pending` as the block after its head in the next 200 ms slot.
func TestFollowDenimForecastsPending(t *testing.T) {
	tn := startTestNode(t, baseUpstreamOptions(t.TempDir(), 8453, true))
	o := replicaOptions(tn, t.TempDir())
	o.feedURL = ""
	r := startTestReplica(t, o)
	waitFor(t, "a few Denim blocks on the replica", func() bool { return r.head() >= 3 })
	if err := tn.Sequencer().SetBlockTime(0); err != nil {
		t.Fatal(err)
	}
	head := tn.Chain().Heads().Latest.Number.Uint64()
	waitFor(t, "the replica at the primary's head", func() bool { return r.head() == head })
	b := r.wantForecastPending(t, "at the head")
	last := blockMs(t, r.stdRaw, head)
	if last.TimestampMs == nil {
		t.Fatalf("block %d has no timestampMs", head)
	}
	ms := uint64(*last.TimestampMs)
	if want, _ := oprollup.NextDenimTime(ms/1000, uint16(ms%1000)); uint64(b.Timestamp) != want {
		t.Fatalf("pending timestamp %d, want %d (the slot 200 ms after the head's %d ms)", b.Timestamp, want, ms)
	}
}
