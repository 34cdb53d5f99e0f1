package main

import (
	"context"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/ethclient"
)

// manyLogsInit deploys runtime code that emits as many LOG0s (no data) as the call data's
// first word says:
//
//	runtime: PUSH0 CALLDATALOAD                                     n
//	  2:     JUMPDEST DUP1 ISZERO PUSH1 18 JUMPI                    while n != 0
//	         PUSH0 PUSH0 LOG0 PUSH1 1 SWAP1 SUB PUSH1 2 JUMP          LOG0; n--
//	  18:    JUMPDEST STOP                                          (20 bytes, 419 gas a log)
//	init:    PUSH1 20 PUSH1 12 PUSH0 CODECOPY PUSH1 20 PUSH0 RETURN 0 0   (12 bytes)
var manyLogsInit = common.FromHex("6014600c5f3960145ff30000" + "5f35" + "5b80156012575f5fa060019003600256" + "5b00")

// manyLogs is the number of logs one transaction emits in these tests: a block of them
// disconnected every idle logs subscriber while the send queue counted messages.
const manyLogs = 10_000

// sendManyLogs sends a call to the manyLogsInit contract from dev account i that emits n logs.
func sendManyLogs(t *testing.T, tn *testNode, i int, contract common.Address, n int) *types.Transaction {
	t.Helper()
	key := tn.Accounts()[i].Key
	nonce, err := tn.pre.PendingNonceAt(context.Background(), addressOf(key))
	if err != nil {
		t.Fatal(err)
	}
	data := common.LeftPadBytes(big.NewInt(int64(n)).Bytes(), 32)
	tx := signTx(t, key, big.NewInt(1337), nonce, &contract, new(big.Int), 60_000+uint64(n)*420, data)
	if err := tn.pre.SendTransaction(context.Background(), tx); err != nil {
		t.Fatalf("send from account %d: %v", i, err)
	}
	return tx
}

// recvLogs receives the n logs of tx, in order, from ch, failing on a subscription error.
func recvLogs(t *testing.T, what string, ch <-chan types.Log, errc <-chan error, tx *types.Transaction, n int) {
	t.Helper()
	deadline := time.After(60 * time.Second) // a hang guard only
	for i := range n {
		select {
		case l := <-ch:
			if l.TxHash != tx.Hash() || l.Index != uint(i) || l.Removed || len(l.Topics) != 0 {
				t.Fatalf("%s: log %d of %d is %+v", what, i, n, l)
			}
		case err := <-errc:
			t.Fatalf("%s: subscription failed after %d of %d logs: %v", what, i, n, err)
		case <-deadline:
			t.Fatalf("%s: %d of %d logs arrived", what, i, n)
		}
	}
}

// logSub is an ethclient subscription of logs or pendingLogs.
type logSub struct {
	what string
	ch   chan types.Log
	sub  ethereum.Subscription
}

// subscribeContractLogs subscribes an ethclient over WebSocket to the logs of contract: kind "logs"
// through SubscribeFilterLogs, "pendingLogs" through eth_subscribe.
func subscribeContractLogs(t *testing.T, url, kind string, contract common.Address) logSub {
	t.Helper()
	raw := dialWS(t, url)
	s := logSub{what: kind + " on " + url, ch: make(chan types.Log, 2*manyLogs)}
	var err error
	if kind == "logs" {
		s.sub, err = ethclient.NewClient(raw).SubscribeFilterLogs(context.Background(), ethereum.FilterQuery{Addresses: []common.Address{contract}}, s.ch)
	} else {
		s.sub, err = raw.EthSubscribe(context.Background(), s.ch, kind, map[string]any{"address": contract})
	}
	if err != nil {
		t.Fatalf("subscribe %s: %v", s.what, err)
	}
	t.Cleanup(s.sub.Unsubscribe)
	return s
}

// TestManyLogsReachIdleSubscribers sends one transaction that emits 10,000 logs: idle
// ethclient subscribers of logs on both endpoints and of pendingLogs get every one of them,
// and none is counted as a slow consumer.
func TestManyLogsReachIdleSubscribers(t *testing.T) {
	o := testOptions(t.TempDir())
	o.metricsPort = optionalPort{port: 0, set: true}
	tn, logs := startLoggedTestNode(t, o)
	contract := deployEmitter(t, tn, manyLogsInit)
	subs := []logSub{
		subscribeContractLogs(t, tn.stdURL, "logs", contract),
		subscribeContractLogs(t, tn.preURL, "logs", contract),
		subscribeContractLogs(t, tn.preURL, "pendingLogs", contract),
	}
	tx := sendManyLogs(t, tn, 1, contract, manyLogs)
	tn.preconfirm(t)
	tn.seal(t)
	receipt, err := tn.std.TransactionReceipt(context.Background(), tx.Hash())
	if err != nil || receipt.Status != types.ReceiptStatusSuccessful || len(receipt.Logs) != manyLogs {
		t.Fatalf("receipt: %v, %+v", err, receipt)
	}
	for _, s := range subs {
		recvLogs(t, s.what, s.ch, s.sub.Err(), tx, manyLogs)
	}
	if strings.Contains(logs.String(), "slow consumer") {
		t.Fatalf("a subscriber was cut as a slow consumer:\n%s", logs.String())
	}
	if n := metricValue(scrapeMetrics(t, tn.MetricsURL()), "flashrpc_ws_slow_consumers_total"); n != 0 {
		t.Fatalf("slow consumers counted: %v", n)
	}
}

// TestManyLogsStalledSubscriber: a raw WebSocket client that subscribes to logs and never
// reads is disconnected as a slow consumer, and counted, while an ethclient subscriber next
// to it gets every log of every block, before and after. The budget is 4 MiB held for 2 s
// (the defaults are 16 MiB and 10 s): loopback socket buffers grow to several MB, and how
// much they take before the node's backlog builds up varies between machines, so the
// defaults would make the number of blocks the cut takes depend on the machine.
func TestManyLogsStalledSubscriber(t *testing.T) {
	ctx := context.Background()
	o := testOptions(t.TempDir())
	o.metricsPort = optionalPort{port: 0, set: true}
	o.RPC.WSSendQueueBytes = 4 << 20 // its ceiling, 4 times that, holds one block's 5 MB burst
	o.RPC.WSSlowConsumerTimeout = 2 * time.Second
	tn, logs := startLoggedTestNode(t, o)
	contract := deployEmitter(t, tn, manyLogsInit)

	stalled, _, err := websocket.Dial(ctx, wsURL(tn.preURL), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer stalled.CloseNow()
	if err := stalled.Write(ctx, websocket.MessageText, []byte(`{"jsonrpc":"2.0","id":1,"method":"eth_subscribe","params":["logs",{}]}`)); err != nil {
		t.Fatal(err)
	}
	if _, answer, err := stalled.Read(ctx); err != nil || !strings.Contains(string(answer), `"result"`) {
		t.Fatalf("stalled subscriber's eth_subscribe: %s %v", answer, err)
	}
	reader := subscribeContractLogs(t, tn.preURL, "logs", contract)

	// Each block adds about 5 MB to the stalled client's backlog: socket buffers take a few,
	// then the backlog stays over the budget and the client is cut 2 s later.
	const most = 20
	rounds := 0
	for ; rounds < most && !strings.Contains(logs.String(), "slow consumer"); rounds++ {
		tx := sendManyLogs(t, tn, 1, contract, manyLogs)
		tn.preconfirm(t)
		tn.seal(t)
		recvLogs(t, reader.what, reader.ch, reader.sub.Err(), tx, manyLogs)
		if rounds >= 3 {
			time.Sleep(time.Second) // the backlog is in place: give the write timeout its time
		}
	}
	if !strings.Contains(logs.String(), "slow consumer") {
		t.Fatalf("the stalled subscriber was not disconnected after %d blocks; node log:\n%s", rounds, logs.String())
	}
	if n := metricValue(scrapeMetrics(t, tn.MetricsURL()), "flashrpc_ws_slow_consumers_total", "endpoint", "pre-confirmed"); n != 1 {
		t.Fatalf("slow consumers counted on the pre-confirmed endpoint: %v, want 1", n)
	}
	tx := sendManyLogs(t, tn, 1, contract, manyLogs)
	tn.preconfirm(t)
	tn.seal(t)
	recvLogs(t, reader.what+" after the disconnect", reader.ch, reader.sub.Err(), tx, manyLogs)
	t.Logf("stalled subscriber disconnected after %d blocks", rounds)
}
