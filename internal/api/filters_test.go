package api

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"

	"github.com/flashrpc/flashrpc/internal/api/events"
	"github.com/flashrpc/flashrpc/internal/rpc"
)

// The semantics of the polling filters: what each kind collects on each endpoint, across
// pre-confirmations, seals and a retraction; expiry (with an injected clock), the node's cap,
// the per-filter bound, and the refusals. ethers' contract.on over HTTP runs against both
// endpoints in the client suite (clients/ethers.mjs, "http-filters").

// testClock is a clock the tests move by hand.
type testClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *testClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// settle waits until both endpoints' streams delivered every event queued so far: the
// sequencer queues its events before Preconfirm and Seal return, and one drain delivers them.
func (n *surfaceNode) settle(t testing.TB) {
	t.Helper()
	for _, a := range []*API{n.std, n.pre} {
		for start := time.Now(); !a.events.Drained(); {
			if time.Since(start) > 10*time.Second { // a guard against a hang, not a measurement
				t.Fatal("the streams did not drain")
			}
			time.Sleep(time.Millisecond)
		}
	}
}

// filterLog is the part of a log the filter tests look at.
type filterLog struct {
	Address     common.Address
	Data        hexutil.Bytes
	BlockNumber hexutil.Uint64
	BlockHash   common.Hash
	Removed     bool
}

// changes polls a filter.
func (n *surfaceNode) changes(t testing.TB, api *API, id string, out any) {
	t.Helper()
	n.settle(t)
	n.mustCall(t, api, out, "eth_getFilterChanges", id)
}

func (n *surfaceNode) install(t testing.TB, api *API, method string, args ...any) string {
	t.Helper()
	var id string
	n.mustCall(t, api, &id, method, args...)
	return id
}

func storeData(v byte) []byte { return common.LeftPadBytes([]byte{v}, 32) }

// TestFilterLogs follows log filters of both endpoints, sealed and reaching `pending`,
// through a pre-confirmation, a seal, and a seal that retracts a pre-confirmed log.
func TestFilterLogs(t *testing.T) {
	n := newSurfaceNode(t, 2, Config{})
	crit := map[string]any{"address": storeAddr, "toBlock": "latest"}
	pendingCrit := map[string]any{"address": storeAddr, "toBlock": "pending"}
	preSealed := n.install(t, n.pre, "eth_newFilter", crit)
	prePending := n.install(t, n.pre, "eth_newFilter", pendingCrit)
	preDefault := n.install(t, n.pre, "eth_newFilter", map[string]any{"address": storeAddr}) // no range: pending there
	stdSealed := n.install(t, n.std, "eth_newFilter", crit)
	stdDefault := n.install(t, n.std, "eth_newFilter", map[string]any{"address": storeAddr})
	stdPending := n.install(t, n.std, "eth_newFilter", pendingCrit) // pending is the sealed head there
	ranged := n.install(t, n.std, "eth_newFilter", map[string]any{"address": storeAddr, "fromBlock": "0x3", "toBlock": "0x3"})
	other := n.install(t, n.pre, "eth_newFilter", map[string]any{"address": echoAddr, "toBlock": "pending"})

	n.send(t, 0, storeAddr, storeData(1))
	n.preconfirm(t)
	var got []filterLog
	for _, id := range []string{prePending, preDefault} {
		n.changes(t, n.pre, id, &got)
		if len(got) != 1 || got[0].Data[31] != 1 || got[0].BlockNumber != 1 || got[0].BlockHash != (common.Hash{}) || got[0].Removed {
			t.Fatalf("pre-confirmed log on the pending filter: %+v", got)
		}
	}
	for _, id := range []struct {
		api *API
		id  string
	}{{n.pre, preSealed}, {n.std, stdSealed}, {n.std, stdPending}, {n.std, stdDefault}, {n.pre, other}} {
		n.changes(t, id.api, id.id, &got)
		if len(got) != 0 {
			t.Fatalf("filter %s got %+v before sealing, want nothing", id.id, got)
		}
	}

	block := n.seal(t)
	for _, id := range []struct {
		api *API
		id  string
	}{{n.pre, preSealed}, {n.std, stdSealed}, {n.std, stdPending}, {n.std, stdDefault}} {
		n.changes(t, id.api, id.id, &got)
		if len(got) != 1 || got[0].BlockHash != block.Hash() || got[0].Data[31] != 1 {
			t.Fatalf("filter %s after sealing: %+v, want the sealed log", id.id, got)
		}
	}
	for _, id := range []string{prePending, preDefault} {
		n.changes(t, n.pre, id, &got)
		if len(got) != 0 {
			t.Fatalf("pending filter after sealing what it had: %+v, want nothing (no log twice)", got)
		}
	}

	// Block 2: two stores pre-confirmed, only the second sealed; the first is retracted.
	n.send(t, 0, storeAddr, storeData(2))
	second := n.send(t, 1, storeAddr, storeData(3))
	n.preconfirm(t)
	n.changes(t, n.pre, prePending, &got)
	if len(got) != 2 {
		t.Fatalf("pending filter: %+v, want the two pre-confirmed logs", got)
	}
	if _, err := n.seq.SealSelected(context.Background(), []common.Hash{second}); err != nil {
		t.Fatal(err)
	}
	n.changes(t, n.pre, prePending, &got)
	var removed, kept int
	for _, l := range got {
		if l.Removed {
			removed++
		} else {
			kept++
		}
	}
	if removed != 2 || kept != 1 || !got[0].Removed {
		// The sealed block holds the second store at another position than it was
		// pre-confirmed at: both pre-confirmed logs are retracted, the sealed one follows.
		t.Fatalf("pending filter after the retraction: %+v, want both pre-confirmed logs removed then the sealed one", got)
	}
	n.changes(t, n.pre, prePending, &got)
	if len(got) != 0 {
		t.Fatalf("retraction reported twice: %+v", got)
	}
	n.changes(t, n.std, stdSealed, &got)
	if len(got) != 1 || got[0].Removed || got[0].Data[31] != 3 {
		t.Fatalf("sealed filter after the retraction: %+v, want the sealed log only", got)
	}

	// Block 3 is in the ranged filter's range; block 4 is not. (Sender 0's dropped
	// transaction left a gap in its nonces: sender 1 sends.)
	for _, v := range []byte{4, 5} {
		n.send(t, 1, storeAddr, storeData(v))
		n.preconfirm(t)
		n.seal(t)
	}
	n.changes(t, n.std, ranged, &got)
	if len(got) != 1 || got[0].BlockNumber != 3 {
		t.Fatalf("filter of block 3: %+v", got)
	}
	n.changes(t, n.pre, other, &got)
	if len(got) != 0 {
		t.Fatalf("a filter of another address got %+v", got)
	}

	// eth_getFilterLogs runs the query now, as eth_getLogs.
	fromGenesis := map[string]any{"address": storeAddr, "fromBlock": "0x0"}
	id := n.install(t, n.std, "eth_newFilter", fromGenesis)
	all := n.mustCall(t, n.std, nil, "eth_getFilterLogs", id)
	want := n.mustCall(t, n.std, nil, "eth_getLogs", fromGenesis)
	var logs []filterLog
	if err := json.Unmarshal(all, &logs); err != nil || len(logs) != 4 || !jsonEqual(all, want) {
		t.Fatalf("eth_getFilterLogs: %s, eth_getLogs %s, want the same 4 logs", all, want)
	}
}

// TestFilterBlocksAndTransactions checks block filters (sealed blocks, both endpoints) and
// pending-transaction filters (pre-confirmed transactions on the pre-confirmed endpoint,
// sealed ones on the standard endpoint), as hashes and as objects.
func TestFilterBlocksAndTransactions(t *testing.T) {
	n := newSurfaceNode(t, 1, Config{})
	stdBlocks := n.install(t, n.std, "eth_newBlockFilter")
	preBlocks := n.install(t, n.pre, "eth_newBlockFilter")
	stdTxs := n.install(t, n.std, "eth_newPendingTransactionFilter")
	preTxs := n.install(t, n.pre, "eth_newPendingTransactionFilter")
	preFull := n.install(t, n.pre, "eth_newPendingTransactionFilter", true)

	h := n.send(t, 0, echoAddr, []byte{1})
	n.preconfirm(t)
	var hashes []common.Hash
	n.changes(t, n.pre, preTxs, &hashes)
	if len(hashes) != 1 || hashes[0] != h {
		t.Fatalf("pre-confirmed endpoint's transaction filter: %v, want %s", hashes, h)
	}
	var full []struct {
		Hash        common.Hash
		BlockHash   *common.Hash
		BlockNumber hexutil.Uint64
	}
	n.changes(t, n.pre, preFull, &full)
	if len(full) != 1 || full[0].Hash != h || full[0].BlockHash != nil || full[0].BlockNumber != 1 {
		t.Fatalf("full transaction filter: %+v", full)
	}
	for _, id := range []struct {
		api *API
		id  string
	}{{n.std, stdTxs}, {n.std, stdBlocks}, {n.pre, preBlocks}} {
		n.changes(t, id.api, id.id, &hashes)
		if len(hashes) != 0 {
			t.Fatalf("filter %s before sealing: %v", id.id, hashes)
		}
	}
	block := n.seal(t)
	n.changes(t, n.std, stdTxs, &hashes)
	if len(hashes) != 1 || hashes[0] != h {
		t.Fatalf("standard endpoint's transaction filter after sealing: %v", hashes)
	}
	n.changes(t, n.pre, preTxs, &hashes)
	if len(hashes) != 0 {
		t.Fatalf("pre-confirmed endpoint's transaction filter reported the sealed transaction again: %v", hashes)
	}
	for _, id := range []struct {
		api *API
		id  string
	}{{n.std, stdBlocks}, {n.pre, preBlocks}} {
		n.changes(t, id.api, id.id, &hashes)
		if len(hashes) != 1 || hashes[0] != block.Hash() {
			t.Fatalf("block filter: %v, want %s", hashes, block.Hash())
		}
	}
	n.wantError(t, n.std, rpc.CodeServer, []string{"filter not found"}, "eth_getFilterLogs", stdBlocks)
}

// TestFilterExpiry moves the filters' clock: a filter polled within 5 minutes lives on, one
// left alone for longer is gone, and its slot is free again.
func TestFilterExpiry(t *testing.T) {
	clock := &testClock{now: time.Unix(1_700_000_000, 0)}
	slots := NewFilterSlots(2)
	n := newSurfaceNodeWith(t, Config{Now: clock.Now}, slots)
	polled := n.install(t, n.std, "eth_newBlockFilter")
	idle := n.install(t, n.pre, "eth_newBlockFilter") // the slots are the node's: both endpoints
	n.wantError(t, n.std, rpc.CodeLimitExceeded, []string{"too many filters", "at most 2"}, "eth_newBlockFilter")
	for range 3 {
		clock.advance(4 * time.Minute)
		n.mustCall(t, n.std, nil, "eth_getFilterChanges", polled)
	}
	n.wantError(t, n.pre, rpc.CodeServer, []string{"filter not found"}, "eth_getFilterChanges", idle)
	n.mustCall(t, n.pre, nil, "eth_newFilter", map[string]any{}) // the expired one's slot
	clock.advance(5*time.Minute + time.Second)
	n.wantError(t, n.std, rpc.CodeServer, []string{"filter not found"}, "eth_getFilterChanges", polled)
	var ok bool
	n.mustCall(t, n.std, &ok, "eth_uninstallFilter", polled)
	if ok {
		t.Fatal("uninstalling an expired filter reported true")
	}
	fresh := n.install(t, n.std, "eth_newBlockFilter")
	n.mustCall(t, n.std, &ok, "eth_uninstallFilter", fresh)
	if !ok {
		t.Fatal("uninstalling a live filter reported false")
	}
	n.wantError(t, n.std, rpc.CodeServer, []string{"filter not found"}, "eth_getFilterChanges", fresh)
}

// TestFilterOverflow checks that a filter not polled while it collects more than it may is
// removed, and that its next poll says why.
func TestFilterOverflow(t *testing.T) {
	n := newSurfaceNodeWith(t, Config{FilterMaxBytes: 1000}, nil)
	id := n.install(t, n.std, "eth_newFilter", map[string]any{"address": storeAddr})
	for v := range byte(4) { // each log is some 400 bytes of JSON
		n.send(t, 0, storeAddr, storeData(v+1))
		n.preconfirm(t)
		n.seal(t)
	}
	n.settle(t)
	n.wantError(t, n.std, rpc.CodeLimitExceeded, []string{"removed", "1000 bytes"}, "eth_getFilterChanges", id)
	n.wantError(t, n.std, rpc.CodeServer, []string{"filter not found"}, "eth_getFilterChanges", id)
}

// TestFilterRefusals checks bad filter requests.
func TestFilterRefusals(t *testing.T) {
	n := newSurfaceNode(t, 1, Config{})
	for _, tc := range []struct {
		name   string
		code   int
		words  []string
		method string
		args   []any
	}{
		{"unknown id", rpc.CodeServer, []string{"filter not found"}, "eth_getFilterChanges", []any{"0x1234"}},
		{"unknown id, logs", rpc.CodeServer, []string{"filter not found"}, "eth_getFilterLogs", []any{"0x1234"}},
		{"id not a string", rpc.CodeInvalidParams, []string{"invalid argument 0 (id)"}, "eth_getFilterChanges", []any{7}},
		{"missing id", rpc.CodeInvalidParams, []string{"missing value"}, "eth_uninstallFilter", nil},
		{"reversed range", rpc.CodeInvalidParams, []string{"invalid block range params"}, "eth_newFilter", []any{map[string]any{"fromBlock": "0x5", "toBlock": "0x4"}}},
		{"latest to a number", rpc.CodeInvalidParams, []string{"invalid block range params"}, "eth_newFilter", []any{map[string]any{"fromBlock": "latest", "toBlock": "0x4"}}},
		{"safe", rpc.CodeInvalidParams, []string{"invalid block range params"}, "eth_newFilter", []any{map[string]any{"fromBlock": "safe"}}},
		{"too many topics", rpc.CodeInvalidParams, []string{"exceed max topics"}, "eth_newFilter", []any{map[string]any{"topics": []any{nil, nil, nil, nil, nil}}}},
		{"bad full flag", rpc.CodeInvalidParams, []string{"invalid argument 0"}, "eth_newPendingTransactionFilter", []any{"yes"}},
		{"extra argument", rpc.CodeInvalidParams, []string{"too many arguments"}, "eth_newBlockFilter", []any{1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n.wantError(t, n.std, tc.code, tc.words, tc.method, tc.args...)
		})
	}
}

// TestPendingTransactionFiltersOnOPStack: on an OP Stack chain the pending-transaction
// filters announce the transactions sent, never the deposits blocks open with (the
// L1-attributes deposit of each block, which never passes a pool): the pre-confirmed
// endpoint's filter gets the transaction when it is pre-confirmed and nothing when the next
// block opens with its deposit, the standard endpoint's the transaction when its block is
// sealed, not the block's deposit.
func TestPendingTransactionFiltersOnOPStack(t *testing.T) {
	n := newOPSurfaceNode(t, 1, Config{})
	stdTxs := n.install(t, n.std, "eth_newPendingTransactionFilter")
	preTxs := n.install(t, n.pre, "eth_newPendingTransactionFilter")
	preFull := n.install(t, n.pre, "eth_newPendingTransactionFilter", true)
	n.seal(t) // block 1, and block 2 opens with its L1-attributes deposit
	h := n.send(t, 0, echoAddr, []byte{1})
	n.preconfirm(t)
	block := n.seal(t) // block 2: [deposit, h]; block 3 opens
	if txs := block.Transactions(); len(txs) != 2 || !txs[0].IsDepositTx() || txs[1].Hash() != h {
		t.Fatalf("block 2 holds %d transactions, want the L1-attributes deposit and the sent one", len(txs))
	}
	for _, f := range []struct {
		api *API
		id  string
	}{{n.std, stdTxs}, {n.pre, preTxs}} {
		var hashes []common.Hash
		n.changes(t, f.api, f.id, &hashes)
		if len(hashes) != 1 || hashes[0] != h {
			t.Fatalf("filter %s: %v, want only %s", f.id, hashes, h)
		}
	}
	var full []struct{ Hash common.Hash }
	n.changes(t, n.pre, preFull, &full)
	if len(full) != 1 || full[0].Hash != h {
		t.Fatalf("full transaction filter: %+v, want only %s", full, h)
	}
}

// newSurfaceNodeWith is newSurfaceNode with one sender and the node's filter slots.
func newSurfaceNodeWith(t testing.TB, cfg Config, slots *events.FilterSlots) *surfaceNode {
	t.Helper()
	return newSurfaceNodeBackend(t, 1, cfg, slots)
}
