package follow

import (
	"context"
	"encoding/json"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"reflect"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/rlp"

	"github.com/flashrpc/flashrpc/internal/chain"
	"github.com/flashrpc/flashrpc/internal/preconf"
)

// l1Genesis returns the Ethereum dev chain's genesis with benchKey funded.
func l1Genesis(t *testing.T) func() *chain.Config {
	return func() *chain.Config {
		g := chain.DevGenesis(chain.DefaultChainID, []common.Address{crypto.PubkeyToAddress(benchKey.PublicKey)})
		return &chain.Config{DataDir: t.TempDir(), Genesis: g}
	}
}

// sealTransfers seals a block of n transfers from benchKey (nonces from *nonce on) on c's head.
func sealTransfers(t *testing.T, c *chain.Chain, p *preconf.Preconf, nonce *uint64, n int) {
	t.Helper()
	ctx := context.Background()
	head := c.Head()
	if _, err := p.Open(ctx, preconf.NextAttributes(c.Config(), head, head.Time+2, common.Address{}, nil), preconf.PublishOptions{}); err != nil {
		t.Fatal(err)
	}
	batch, err := p.Begin()
	if err != nil {
		t.Fatal(err)
	}
	signer := types.LatestSigner(c.Config())
	for i := range n {
		to := common.BigToAddress(big.NewInt(int64(0x20000 + *nonce)))
		tx, err := types.SignNewTx(benchKey, signer, &types.DynamicFeeTx{
			ChainID: c.Config().ChainID, Nonce: *nonce, To: &to, Value: big.NewInt(1), Gas: params.TxGas,
			GasFeeCap: big.NewInt(10 * params.GWei), GasTipCap: big.NewInt(params.GWei),
		})
		if err != nil {
			t.Fatal(err)
		}
		if err := batch.Add(ctx, tx); err != nil {
			t.Fatalf("transfer %d: %v", i, err)
		}
		*nonce++
	}
	if _, err := batch.Commit(ctx, preconf.PublishOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Seal(ctx); err != nil {
		t.Fatal(err)
	}
}

// rawUpstream serves src's head (eth_blockNumber) and its blocks in their consensus encoding
// (debug_getRawBlock) in batches, as far as *serves says; fail, when it returns true for a
// block, answers that block's batch with an HTTP error.
func rawUpstream(t *testing.T, src *chain.Chain, serves *atomic.Uint64, fail func(n uint64) bool) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var batch []struct {
			ID     json.RawMessage   `json:"id"`
			Method string            `json:"method"`
			Params []json.RawMessage `json:"params"`
		}
		if err := json.NewDecoder(r.Body).Decode(&batch); err != nil {
			http.Error(w, "this test upstream takes batches only", http.StatusBadRequest)
			return
		}
		out := make([]map[string]any, len(batch))
		for i, req := range batch {
			out[i] = map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": nil}
			switch req.Method {
			case "eth_blockNumber":
				out[i]["result"] = hexutil.Uint64(serves.Load())
			case "debug_getRawBlock":
				var n hexutil.Uint64
				if err := json.Unmarshal(req.Params[0], &n); err != nil {
					http.Error(w, err.Error(), http.StatusBadRequest)
					return
				}
				if fail != nil && fail(uint64(n)) {
					http.Error(w, "upstream failing", http.StatusServiceUnavailable)
					return
				}
				if uint64(n) > serves.Load() {
					delete(out[i], "result")
					out[i]["error"] = map[string]any{"code": -32000, "message": "block not found"}
					continue
				}
				enc, err := rlp.EncodeToBytes(src.BlockByNumber(uint64(n)))
				if err != nil {
					http.Error(w, err.Error(), http.StatusInternalServerError)
					return
				}
				out[i]["result"] = hexutil.Bytes(enc)
			}
		}
		json.NewEncoder(w).Encode(out)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestCatchUpPipeline catches a replica up over many batches (more than the look-ahead and
// the largest merged insert), through an upstream that serves fewer blocks than its head
// first (a short batch) and fails one batch once: each sync inserts what it verified and
// stops, the next goes on from there, and the replica ends with the upstream's chain, block
// for block.
func TestCatchUpPipeline(t *testing.T) {
	g := l1Genesis(t)
	src, err := chain.Open(*g())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { src.Close() })
	pre := preconf.New(src)
	var nonce uint64
	const blocks = 2*syncInsertMax + syncBatch*syncAhead + 7
	for n := range blocks {
		sealTransfers(t, src, pre, &nonce, n%3)
	}
	var serves atomic.Uint64
	serves.Store(syncInsertMax + 5) // the head says more: the batch at the edge is short
	var failed atomic.Bool
	var syncs atomic.Int32
	up := rawUpstream(t, src, &serves, func(n uint64) bool {
		// Once, in the second sync (the first may have asked for it ahead and dropped it).
		return n == syncInsertMax+syncBatch*2+1 && syncs.Load() == 2 && !failed.Swap(true)
	})
	c, err := chain.Open(*g())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	f, err := New(Config{Upstream: up.URL}, c, preconf.New(c))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	sync := func(target uint64) {
		f.upHead.Store(target)
		f.upKnown.Store(true)
		f.upLastOK.Store(time.Now().UnixNano())
		f.refused = refusal{} // no backoff between the test's syncs
		syncs.Add(1)
		f.sync(ctx)
	}
	sync(blocks)
	if got := c.Head().Number.Uint64(); got != syncInsertMax+5 {
		t.Fatalf("after the short batch: head %d, want %d (what the upstream serves)", got, syncInsertMax+5)
	}
	serves.Store(blocks)
	sync(blocks)
	if !failed.Load() {
		t.Fatal("the failing batch was never asked for")
	}
	if got := c.Head().Number.Uint64(); got >= blocks {
		t.Fatalf("head %d: the sync went past a batch that failed", got)
	}
	sync(blocks)
	if got := c.Head().Number.Uint64(); got != blocks {
		t.Fatalf("head %d, want %d", got, blocks)
	}
	for n := uint64(1); n <= blocks; n++ {
		if got, want := c.CanonicalHash(n), src.CanonicalHash(n); got != want {
			t.Fatalf("block %d: %s, the upstream's %s", n, got, want)
		}
	}
}

// senderCached reports whether tx holds a cached sender, the one types.Sender returns
// without recovering it. go-ethereum keeps it in the unexported atomic pointer "from"; the
// test reads that pointer by reflection rather than counting allocations around a call to
// types.Sender, which every other goroutine's allocations in the same moment disturb.
func senderCached(t *testing.T, tx *types.Transaction) bool {
	t.Helper()
	from := reflect.ValueOf(tx).Elem().FieldByName("from")
	if !from.IsValid() {
		t.Fatal("types.Transaction has no field from: go-ethereum changed where it caches the sender")
	}
	v := from.FieldByName("v") // sync/atomic.Pointer's value
	if !v.IsValid() || v.Kind() != reflect.UnsafePointer {
		t.Fatalf("types.Transaction.from is %s, not an atomic.Pointer", from.Type())
	}
	return !v.IsNil()
}

// TestPrepareBlocks checks that the pipeline's recovery gives each transaction the
// sender it was signed by, whichever worker took it, cached in the transaction.
func TestPrepareBlocks(t *testing.T) {
	g := l1Genesis(t)
	src, err := chain.Open(*g())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { src.Close() })
	pre := preconf.New(src)
	var nonce uint64
	sealTransfers(t, src, pre, &nonce, 3*recoverPerWorker)
	sealTransfers(t, src, pre, &nonce, 1)
	blocks := make([]*types.Block, 2)
	for i := range blocks {
		enc, err := rlp.EncodeToBytes(src.BlockByNumber(uint64(i + 1)))
		if err != nil {
			t.Fatal(err)
		}
		blocks[i] = new(types.Block) // decoded afresh: no sender cached
		if err := rlp.DecodeBytes(enc, blocks[i]); err != nil {
			t.Fatal(err)
		}
	}
	prepareBlocks(context.Background(), src.Config(), blocks)
	want := crypto.PubkeyToAddress(benchKey.PublicKey)
	if len(blocks[0].Transactions()) != 3*recoverPerWorker {
		t.Fatalf("block 1 has %d transactions, want %d", len(blocks[0].Transactions()), 3*recoverPerWorker)
	}
	for _, b := range blocks {
		signer := types.MakeSigner(src.Config(), b.Number(), b.Time())
		for i, tx := range b.Transactions() {
			if !senderCached(t, tx) {
				t.Fatalf("block %d transaction %d: sender not cached", b.NumberU64(), i)
			}
			if got, err := types.Sender(signer, tx); err != nil || got != want {
				t.Fatalf("block %d transaction %d: sender %s (%v), want %s", b.NumberU64(), i, got, err, want)
			}
		}
	}
}

// TestSyncWaitsForFetches checks that closing a sync's look-ahead cancels the batches in
// flight and returns only once their fetches have ended: each has delivered its result. The
// upstream answers nothing until the request is cancelled or the test ends.
func TestSyncWaitsForFetches(t *testing.T) {
	ended := make(chan struct{})
	stuck := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Read to the end: only then does the server watch the connection, and cancel the
		// request's context when the client drops it.
		if _, err := io.Copy(io.Discard, r.Body); err != nil {
			return
		}
		select {
		case <-r.Context().Done():
		case <-ended:
		}
	}))
	t.Cleanup(stuck.Close)
	t.Cleanup(func() { close(ended) }) // runs first: no handler holds the server's Close
	c, err := chain.Open(*l1Genesis(t)())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	f, err := New(Config{Upstream: stuck.URL}, c, preconf.New(c))
	if err != nil {
		t.Fatal(err)
	}
	la := &lookahead{f: f}
	la.fill(context.Background(), 0, 10*syncBatch)
	inFlight := la.inFlight
	if len(inFlight) != syncAhead {
		t.Fatalf("%d batches in flight, want %d", len(inFlight), syncAhead)
	}
	la.close()
	for _, p := range inFlight {
		select {
		case r := <-p.done:
			if r.err == nil {
				t.Fatalf("batch %d..%d: fetched from an upstream that answers nothing", p.from, p.to)
			}
		default:
			t.Fatalf("batch %d..%d: its fetch still runs after the look-ahead closed", p.from, p.to)
		}
	}
}

// TestSenderPoolClosedContext checks that a pool whose context has ended recovers nothing
// queued: closing the feed reader does not wait for the senders of flashblocks nobody will
// execute.
func TestSenderPoolClosedContext(t *testing.T) {
	cfg := params.AllDevChainProtocolChanges
	signer := types.LatestSigner(cfg)
	txs := make([]*types.Transaction, 4*recoverPerWorker)
	for i := range txs {
		tx, err := types.SignNewTx(benchKey, signer, &types.DynamicFeeTx{ChainID: cfg.ChainID, Nonce: uint64(i), Gas: params.TxGas})
		if err != nil {
			t.Fatal(err)
		}
		enc, err := tx.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		txs[i] = new(types.Transaction) // decoded afresh: no sender cached
		if err := txs[i].UnmarshalBinary(enc); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	pool := newSenderPool(ctx)
	cancel()
	r := pool.submit(txs, signer, false)
	if r == nil {
		t.Fatal("nothing queued")
	}
	pool.close()
	r.waitAll()
	for i, tx := range txs {
		if senderCached(t, tx) {
			t.Fatalf("transaction %d: sender recovered after the pool's context ended", i)
		}
	}
}
