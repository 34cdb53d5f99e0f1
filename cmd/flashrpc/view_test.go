package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	gethrpc "github.com/ethereum/go-ethereum/rpc"
)

// The consistency of answers while blocks seal under the readers (issue: one view per
// request). Pollers on the pre-confirmed endpoint ask for transactions, receipts, logs and
// the head while a dev node pre-confirms every 10 ms and seals every 50 ms. Every answer is
// checked against what earlier answers showed:
//
//   - a transaction or receipt that an answer has shown is never null in a later answer
//     (a request that starts after that answer arrived);
//   - eth_getLogs up to `pending` never returns a log twice, and never misses a log an earlier
//     answer showed in its range;
//   - `latest` (eth_blockNumber, eth_getBlockByNumber) never goes backwards.
//
// Nothing is retracted and nothing reorganises here, the two documented exceptions.

// stressDuration is how long the readers poll; FLASHRPC_VIEW_STRESS (a Go duration) changes
// it. It is an amount of work, not a time limit: nothing is asserted about speed.
func stressDuration(t *testing.T) time.Duration {
	t.Helper()
	if s := os.Getenv("FLASHRPC_VIEW_STRESS"); s != "" {
		d, err := time.ParseDuration(s)
		if err != nil {
			t.Fatalf("FLASHRPC_VIEW_STRESS: %v", err)
		}
		return d
	}
	return 5 * time.Second
}

// Shape of the stress run.
const (
	stressSenders     = 4  // accounts sending log-emitting calls with eth_sendRawTransactionSync
	stressReaders     = 8  // concurrent pollers
	stressRecent      = 64 // how many of the newest shown transactions the checker keeps
	stressBatch       = 96 // calls per batch
	stressLogsWindow  = 8  // eth_getLogs asks from this many blocks below the newest head shown
	stressLogsBatch   = 8  // eth_getLogs calls per batch
	stressMaxFailures = 20 // violations reported in full
)

func TestViewInvariantsUnderLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("stress test: blocks sealing under concurrent readers")
	}
	o := testOptions(t.TempDir())
	o.blockTime, o.preconfInterval = 50*time.Millisecond, 10*time.Millisecond
	tn := startTestNode(t, o)
	emitter := deployEmitter(t, tn, logInit)

	chk := newViewChecker()
	ctx, cancel := context.WithTimeout(context.Background(), stressDuration(t))
	defer cancel()
	var wg sync.WaitGroup
	for i := 1; i <= stressSenders; i++ {
		wg.Go(func() { chk.send(ctx, t, tn, i, emitter) })
	}
	for range stressReaders {
		c, err := gethrpc.Dial(tn.preURL)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		wg.Go(func() { chk.read(ctx, t, c, emitter) })
	}
	wg.Wait()

	chk.mu.Lock()
	defer chk.mu.Unlock()
	t.Logf("%d transactions sent, %d polls (%d eth_getLogs), newest head %d, %d violations",
		chk.sent.Load(), chk.polls.Load(), chk.logPolls.Load(), chk.latest, chk.violations)
	if chk.sent.Load() == 0 || chk.logPolls.Load() == 0 {
		t.Fatal("the run did no work")
	}
	if chk.violations > 0 {
		t.Fatalf("%d answers contradicted earlier ones; first ones:\n%s", chk.violations, chk.report)
	}
}

// viewChecker holds what answers have shown so far. Its methods are safe for concurrent use.
type viewChecker struct {
	mu         sync.Mutex             // guards the fields below
	shown      map[common.Hash]bool   // transactions some answer has shown
	recent     []shownTx              // the newest transactions the senders were shown, oldest first
	logs       map[common.Hash]uint64 // transaction → block of its log, as an eth_getLogs answer showed it
	latest     uint64                 // the highest `latest` some answer has shown
	violations int                    // answers that contradicted an earlier one
	report     string                 // the first stressMaxFailures of them
	sent       atomic.Int64           // transactions pre-confirmed
	polls      atomic.Int64           // reader rounds
	logPolls   atomic.Int64           // eth_getLogs calls
}

func newViewChecker() *viewChecker {
	return &viewChecker{shown: make(map[common.Hash]bool), logs: make(map[common.Hash]uint64)}
}

func (c *viewChecker) violation(format string, args ...any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.violations++
	if c.violations <= stressMaxFailures {
		c.report += fmt.Sprintf(format, args...) + "\n"
	}
}

// shownTx is a transaction and the block its receipt named.
type shownTx struct {
	hash  common.Hash
	block uint64
}

// markShown records that an answer showed tx.
func (c *viewChecker) markShown(tx common.Hash) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.shown[tx] = true
}

// markSent records a transaction the sender's answer showed in block; the readers poll the
// newest ones, which are the ones about to move from pre-confirmed to sealed.
func (c *viewChecker) markSent(tx common.Hash, block uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.shown[tx] = true
	c.recent = append(c.recent, shownTx{tx, block})
	if len(c.recent) > 4*stressRecent {
		c.recent = append(c.recent[:0], c.recent[len(c.recent)-stressRecent:]...)
	}
}

// pollList returns the shown transactions of the block in progress as the checker knows it
// (the ones that can move from pre-confirmed to sealed while they are looked up), with
// whether each was shown before now.
func (c *viewChecker) pollList() ([]common.Hash, []bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var list []common.Hash
	var shown []bool
	for _, tx := range c.recent {
		if tx.block > c.latest {
			list = append(list, tx.hash)
			shown = append(shown, c.shown[tx.hash])
		}
	}
	return list, shown
}

// send sends calls to emitter from dev account i, one at a time, each with
// eth_sendRawTransactionSync: its answer is the pre-confirmed receipt, the first answer that
// shows the transaction.
func (c *viewChecker) send(ctx context.Context, t *testing.T, tn *testNode, i int, emitter common.Address) {
	key := tn.Accounts()[i].Key
	nonce, err := tn.pre.PendingNonceAt(ctx, addressOf(key))
	if err != nil {
		t.Error(err)
		return
	}
	for ; ctx.Err() == nil; nonce++ {
		tx := signTx(t, key, big.NewInt(1337), nonce, &emitter, new(big.Int), 60_000, nil)
		raw, _ := tx.MarshalBinary()
		var r *types.Receipt
		if err := tn.preRaw.CallContext(ctx, &r, "eth_sendRawTransactionSync", hexutil.Bytes(raw)); err != nil {
			if ctx.Err() == nil {
				t.Errorf("account %d, nonce %d: %v", i, nonce, err)
			}
			return
		}
		if r == nil || r.TxHash != tx.Hash() {
			t.Errorf("account %d, nonce %d: receipt %+v", i, nonce, r)
			return
		}
		c.markSent(tx.Hash(), r.BlockNumber.Uint64())
		c.sent.Add(1)
	}
}

// read polls until ctx ends, checking each answer against what was shown before the request
// was sent. It sends batches: the server answers a batch's calls one after the other, so
// each call is a request that starts after the previous one's answer, and a batch makes many
// requests for the price of one HTTP exchange.
func (c *viewChecker) read(ctx context.Context, t *testing.T, rc *gethrpc.Client, emitter common.Address) {
	for round := 0; ctx.Err() == nil; round++ {
		c.polls.Add(1)
		if !c.checkLookups(ctx, rc) || !c.checkLatest(ctx, rc) {
			return
		}
		if round%4 == 0 && !c.checkLogs(ctx, rc, emitter) {
			return
		}
	}
}

// checkLookups asks for the receipt and the transaction of each transaction of the block in
// progress and of the newest sealed one, again and again in one batch.
func (c *viewChecker) checkLookups(ctx context.Context, rc *gethrpc.Client) bool {
	hashes, shownBefore := c.pollList()
	if len(hashes) == 0 {
		return true
	}
	shown := make(map[common.Hash]bool, len(hashes))
	for k, h := range hashes {
		shown[h] = shownBefore[k]
	}
	methods := []string{"eth_getTransactionReceipt", "eth_getTransactionByHash"}
	batch := make([]gethrpc.BatchElem, 0, stressBatch)
	for k := 0; len(batch) < stressBatch; k++ {
		h := hashes[k%len(hashes)]
		batch = append(batch, gethrpc.BatchElem{Method: methods[(k/len(hashes))%2], Args: []any{h}, Result: new(json.RawMessage)})
	}
	if err := rc.BatchCallContext(ctx, batch); err != nil {
		return false
	}
	for _, e := range batch {
		if e.Error != nil {
			if ctx.Err() == nil {
				c.violation("%s: %v", e.Method, e.Error)
			}
			continue
		}
		h := e.Args[0].(common.Hash)
		if string(*e.Result.(*json.RawMessage)) == "null" {
			if shown[h] {
				c.violation("%s(%s) = null after an earlier answer showed it", e.Method, h)
			}
			continue
		}
		shown[h] = true
		c.markShown(h)
	}
	return true
}

// checkLatest asks for the head twice: eth_blockNumber and eth_getBlockByNumber("latest").
func (c *viewChecker) checkLatest(ctx context.Context, rc *gethrpc.Client) bool {
	for _, call := range []struct {
		method string
		args   []any
	}{{"eth_blockNumber", nil}, {"eth_getBlockByNumber", []any{"latest", false}}} {
		c.mu.Lock()
		before := c.latest
		c.mu.Unlock()
		var n hexutil.Uint64
		if call.method == "eth_blockNumber" {
			if rc.CallContext(ctx, &n, call.method) != nil {
				return false
			}
		} else {
			var b struct{ Number hexutil.Uint64 }
			if rc.CallContext(ctx, &b, call.method, call.args...) != nil {
				return false
			}
			n = b.Number
		}
		if uint64(n) < before {
			c.violation("%s: latest %d after an earlier answer showed %d", call.method, n, before)
		}
		c.mu.Lock()
		c.latest = max(c.latest, uint64(n))
		c.mu.Unlock()
	}
	return true
}

// checkLogs asks, stressLogsBatch times in one batch, for the emitter's logs from a few blocks
// below the newest head shown up to `pending`: no log twice, and every log an earlier answer
// showed in that range.
func (c *viewChecker) checkLogs(ctx context.Context, rc *gethrpc.Client, emitter common.Address) bool {
	c.logPolls.Add(1)
	c.mu.Lock()
	from := c.latest - min(c.latest, stressLogsWindow)
	want := make(map[common.Hash]bool)
	for tx, block := range c.logs {
		if block >= from {
			want[tx] = true
		}
	}
	c.mu.Unlock()
	filter := map[string]any{"address": emitter, "fromBlock": hexutil.Uint64(from), "toBlock": "pending"}
	batch := make([]gethrpc.BatchElem, stressLogsBatch)
	for i := range batch {
		batch[i] = gethrpc.BatchElem{Method: "eth_getLogs", Args: []any{filter}, Result: new([]types.Log)}
	}
	if err := rc.BatchCallContext(ctx, batch); err != nil {
		return false
	}
	for _, e := range batch {
		if e.Error != nil {
			if ctx.Err() == nil {
				c.violation("eth_getLogs from %d: %v", from, e.Error)
			}
			continue
		}
		seen := make(map[common.Hash]uint64)
		for _, l := range *e.Result.(*[]types.Log) {
			if b, dup := seen[l.TxHash]; dup {
				c.violation("eth_getLogs from %d: the log of %s twice (blocks %d and %d)", from, l.TxHash, b, l.BlockNumber)
			}
			seen[l.TxHash] = l.BlockNumber
		}
		for tx := range want {
			if _, ok := seen[tx]; !ok {
				c.violation("eth_getLogs from %d: the log of %s is missing after an earlier answer showed it", from, tx)
			}
		}
		for tx := range seen { // later calls of the batch must show it too
			want[tx] = true
		}
		c.mu.Lock()
		for tx, block := range seen {
			if old, ok := c.logs[tx]; !ok || block > old {
				c.logs[tx] = block
			}
		}
		c.mu.Unlock()
	}
	c.mu.Lock()
	for tx, block := range c.logs { // forget what no later query asks for
		if block+4*stressLogsWindow < c.latest {
			delete(c.logs, tx)
		}
	}
	c.mu.Unlock()
	return true
}
