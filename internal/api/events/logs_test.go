package events

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/flashrpc/flashrpc/internal/api/core"
	"github.com/flashrpc/flashrpc/internal/chain"
	"github.com/flashrpc/flashrpc/internal/chaingen"
	"github.com/flashrpc/flashrpc/internal/ethjson"
	"github.com/flashrpc/flashrpc/internal/logs"
	"github.com/flashrpc/flashrpc/internal/rpc"
)

// denseChain is a generated chain over a small population, so that random filters match
// often: 6 tokens, 3 pools, 40 accounts.
var denseChain = chaingen.Config{Tokens: 6, Pools: 3, Spenders: 3, Accounts: 40, Senders: 12, TxsPerBlock: 3, RareEvery: 40}

// generateInto appends blocks generated with seed to the chain in dir (created when new).
func generateInto(t *testing.T, dir string, blocks uint64, seed int64) {
	t.Helper()
	w, err := chain.OpenBulk(chain.Config{DataDir: dir, Genesis: chaingen.Genesis(chain.DefaultChainID)})
	if err != nil {
		t.Fatal(err)
	}
	cfg := denseChain
	cfg.Blocks, cfg.Seed = blocks, seed
	if err := chaingen.Generate(context.Background(), cfg, w); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// logsNode is a chain with its index and two APIs over it: one with the index, one that scans.
type logsNode struct {
	chain            *chain.Chain
	index            *logs.Index
	indexed, scanned *API
}

func openLogsNode(t *testing.T, dir string, cfg Config) *logsNode {
	t.Helper()
	c, err := chain.Open(chain.Config{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	ix, err := logs.OpenIndex(logs.IndexConfig{Store: c.LogIndexStore(), Chain: c})
	if err != nil {
		t.Fatal(err)
	}
	c.OnHead(func(chain.HeadEvent) { ix.Notify() })
	n := &logsNode{chain: c, index: ix,
		indexed: New(core.New(core.Config{}, core.Backend{Chain: c}), cfg, Backend{Logs: ix}),
		scanned: New(core.New(core.Config{}, core.Backend{Chain: c}), cfg, Backend{}),
	}
	t.Cleanup(n.close)
	return n
}

func (n *logsNode) close() {
	if n.chain != nil {
		n.index.Close()
		n.chain.Close()
		n.chain = nil
	}
}

func (n *logsNode) sync(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := n.index.Sync(ctx); err != nil {
		t.Fatal(err)
	}
}

// randomFilter draws an eth_getLogs filter over the dense chain's population, with the
// shapes clients send: address string or list, topics with nulls and OR-lists, ranges with
// tags, or a block hash.
func randomFilter(rng *rand.Rand, head uint64, c *chain.Chain) map[string]any {
	addr := func() string {
		switch rng.IntN(10) {
		case 0:
			return chaingen.Pool(rng.IntN(denseChain.Pools)).Hex()
		case 1:
			return chaingen.RareContract.Hex()
		case 2:
			return "0x00000000000000000000000000000000000000ff"
		}
		return chaingen.Token(rng.IntN(denseChain.Tokens)).Hex()
	}
	topic := func(pos int) string {
		if pos == 0 {
			return []common.Hash{chaingen.TransferTopic, chaingen.ApprovalTopic, chaingen.SwapTopic, chaingen.RareTopic, {0xff}}[rng.IntN(5)].Hex()
		}
		a := chaingen.Account(rng.IntN(denseChain.Accounts), denseChain.Senders)
		if rng.IntN(4) == 0 {
			a = chaingen.Pool(rng.IntN(denseChain.Pools))
		}
		return common.BytesToHash(a.Bytes()).Hex()
	}
	f := map[string]any{}
	switch rng.IntN(4) {
	case 1:
		f["address"] = addr()
	case 2:
		f["address"] = []string{addr(), addr()}
	}
	if n := rng.IntN(4); n > 0 {
		topics := make([]any, n)
		for pos := range topics {
			switch rng.IntN(3) {
			case 1:
				topics[pos] = topic(pos)
			case 2:
				topics[pos] = []string{topic(pos), topic(pos), topic(pos)}
			}
		}
		f["topics"] = topics
	}
	// Range widths spread evenly over orders of magnitude, up to the whole chain.
	first := rng.Uint64N(head + 1)
	last := min(head, first+rng.Uint64N(1<<rng.IntN(12)))
	switch rng.IntN(10) {
	case 0:
		f["blockHash"] = c.CanonicalHash(first).Hex()
	case 1:
		f["fromBlock"], f["toBlock"] = "earliest", "latest"
	case 2:
		f["fromBlock"] = hexutil.EncodeUint64(max(first, head-head/8)) // toBlock defaults to latest
	default:
		f["fromBlock"], f["toBlock"] = hexutil.EncodeUint64(first), hexutil.EncodeUint64(last)
	}
	return f
}

// getLogs calls eth_getLogs on a and returns the JSON result or error.
func getLogs(t *testing.T, a *API, filter map[string]any) string {
	t.Helper()
	arg, err := json.Marshal(filter)
	if err != nil {
		t.Fatal(err)
	}
	res, err := a.GetLogs(context.Background(), a.View(), rpc.Params{arg})
	if err != nil {
		data, _ := json.Marshal(err)
		return fmt.Sprintf("error %v %s", err, data)
	}
	return string(res.(json.RawMessage))
}

// compareWithScan checks that the index answers every random filter exactly as the scan does:
// the same logs in the same order with the same fields, or the same error.
func compareWithScan(t *testing.T, rng *rand.Rand, n *logsNode, queries int) (matched int) {
	t.Helper()
	head := n.chain.Head().Number.Uint64()
	for q := range queries {
		f := randomFilter(rng, head, n.chain)
		got, want := getLogs(t, n.indexed, f), getLogs(t, n.scanned, f)
		if got != want {
			t.Fatalf("query %d %v:\nindexed %.600s\nscanned %.600s", q, f, got, want)
		}
		if len(want) > 2 && want[0] == '[' {
			matched++
		}
	}
	return matched
}

// TestIndexedLogsEqualScan is the index's property test: on random generated chains, random
// filters give the scan's answer, limits included.
func TestIndexedLogsEqualScan(t *testing.T) {
	t.Parallel()
	for seed := range int64(3) {
		t.Run(fmt.Sprint("seed=", seed), func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			generateInto(t, dir, 1_100+uint64(seed)*200, seed)
			// A cap of 400 logs makes broad filters hit -32005, which must name the same range.
			n := openLogsNode(t, dir, Config{LogsMaxResults: 400})
			n.sync(t)
			rng := rand.New(rand.NewPCG(uint64(seed), 9))
			if matched := compareWithScan(t, rng, n, 200); matched < 50 {
				t.Fatalf("only %d of 200 filters matched anything: the test proves little", matched)
			}
		})
	}
}

// TestIndexedLogsAcrossRewinds rewinds the chain under a running index (as a failed import or
// a forkchoice update does) and builds a different fork on it: answers stay the scan's before
// and after the index catches up, and after a restart.
func TestIndexedLogsAcrossRewinds(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	generateInto(t, dir, 1_300, 1)
	rng := rand.New(rand.NewPCG(4, 4))
	n := openLogsNode(t, dir, Config{LogsMaxResults: 100_000})
	n.sync(t)
	compareWithScan(t, rng, n, 40)

	// Rewind to block 1,100, above the checkpoint at 1,024: queries must not use the index for
	// the blocks that are gone.
	if err := n.chain.SetForkchoice(n.chain.CanonicalHash(1_100), common.Hash{}, common.Hash{}); err != nil {
		t.Fatal(err)
	}
	compareWithScan(t, rng, n, 40)
	n.sync(t)
	if last, ok := n.index.Indexed(); !ok || last != 1_100 {
		t.Fatalf("after the rewind the index covers %d (%v), want 1100", last, ok)
	}
	compareWithScan(t, rng, n, 40)
	n.close()

	// Another fork on top, longer than the first; the index finds out when it opens.
	generateInto(t, dir, 400, 2)
	n = openLogsNode(t, dir, Config{LogsMaxResults: 100_000})
	compareWithScan(t, rng, n, 30) // while it catches up
	n.sync(t)
	if last, ok := n.index.Indexed(); !ok || last != 1_500 {
		t.Fatalf("the index covers %d (%v), want 1500", last, ok)
	}
	compareWithScan(t, rng, n, 100)
}

// TestIndexedLogsSurviveDamage damages log records of the index (docs/format/logindex.md:
// keys "l" ‖ number): the query that reads one answers from a scan, exactly, and the index is
// rebuilt.
func TestIndexedLogsSurviveDamage(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	generateInto(t, dir, 600, 3)
	n := openLogsNode(t, dir, Config{LogsMaxResults: 100_000})
	n.sync(t)
	store := n.chain.LogIndexStore()
	it := store.NewIterator([]byte("l"), nil)
	damaged := 0
	for i := 0; it.Next(); i++ {
		if i%50 == 0 {
			val := append([]byte{}, it.Value()...)
			val[len(val)/2] ^= 0x40
			if err := store.Put(append([]byte{}, it.Key()...), val); err != nil {
				t.Fatal(err)
			}
			damaged++
		}
	}
	it.Release()
	if damaged < 5 {
		t.Fatalf("damaged %d records", damaged)
	}
	filter := map[string]any{"fromBlock": "earliest", "toBlock": "latest", "topics": []any{chaingen.TransferTopic.Hex()}}
	if got, want := getLogs(t, n.indexed, filter), getLogs(t, n.scanned, filter); got != want {
		t.Fatalf("over damaged records:\nindexed %.600s\nscanned %.600s", got, want)
	}
	n.sync(t) // rebuilt
	compareWithScan(t, rand.New(rand.NewPCG(5, 5)), n, 50)
}

// TestMaxLogJSON checks that ethjson.MaxLogJSON, which sizes the fetch workers' arenas, bounds
// ethjson.AppendLog's encoding, widest quantities included.
func TestMaxLogJSON(t *testing.T) {
	t.Parallel()
	for topics := range 6 {
		for _, size := range []int{0, 1, 32, 1000} {
			l := &types.Log{Topics: make([]common.Hash, topics), Data: make([]byte, size), BlockNumber: math.MaxUint64,
				TxIndex: math.MaxUint, Index: math.MaxUint, BlockTimestamp: math.MaxUint64, Removed: true}
			if got, bound := len(ethjson.AppendLog(nil, l)), ethjson.MaxLogJSON(l); got > bound {
				t.Errorf("%d topics, %d bytes of data: %d bytes of JSON, bound %d", topics, size, got, bound)
			}
		}
	}
}

// TestJSONArenaKeepsRuns writes runs of every size into a jsonArena, some moved to a new chunk
// half-written: every run handed out keeps its bytes.
func TestJSONArenaKeepsRuns(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(8, 8))
	var (
		a    jsonArena
		runs [][]byte
		want []string
	)
	for i := range 2_000 {
		start := len(a.buf)
		var w []byte
		for range rng.IntN(5) {
			piece := strings.Repeat(string(rune('a'+i%26)), rng.IntN(arenaChunk/8))
			start = a.reserve(start, len(piece))
			a.buf = append(a.buf, piece...)
			w = append(w, piece...)
		}
		runs = append(runs, a.buf[start:len(a.buf):len(a.buf)])
		want = append(want, string(w))
	}
	for i := range runs {
		if string(runs[i]) != want[i] {
			t.Fatalf("run %d: %d bytes %.20q…, want %d bytes %.20q…", i, len(runs[i]), runs[i], len(want[i]), want[i])
		}
	}
	a.release()
}

// benchLogsBlocks is the length of BenchmarkGetLogs's generated chain: chaingen's default
// population (1,000 tokens), as in docs/benchmarks.md's million-block chain.
const benchLogsBlocks = 20_000

// BenchmarkGetLogs measures eth_getLogs through the index over the whole of a generated chain,
// up to the JSON result: a middling token's logs (one log in each of a few thousand blocks,
// the shape of the benchmark chain's "contract" query) and a busy token's Approval events.
// The per-block cost is ns/op divided by blocks/op.
func BenchmarkGetLogs(b *testing.B) {
	dir := b.TempDir()
	w, err := chain.OpenBulk(chain.Config{DataDir: dir, Genesis: chaingen.Genesis(chain.DefaultChainID)})
	if err != nil {
		b.Fatal(err)
	}
	if err := chaingen.Generate(context.Background(), chaingen.Config{Blocks: benchLogsBlocks, Seed: 1}, w); err != nil {
		b.Fatal(err)
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	c, err := chain.Open(chain.Config{DataDir: dir})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	ix, err := logs.OpenIndex(logs.IndexConfig{Store: c.LogIndexStore(), Chain: c})
	if err != nil {
		b.Fatal(err)
	}
	defer ix.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := ix.Sync(ctx); err != nil {
		b.Fatal(err)
	}
	a := New(core.New(core.Config{}, core.Backend{Chain: c}), Config{}, Backend{Logs: ix})
	queries := []struct {
		name   string
		filter string
	}{
		{"contract", `{"fromBlock":"earliest","address":"` + chaingen.Token(3).Hex() + `"}`},
		{"contract+topic", `{"fromBlock":"earliest","address":"` + chaingen.Token(1).Hex() + `","topics":["` + chaingen.ApprovalTopic.Hex() + `"]}`},
	}
	for _, q := range queries {
		b.Run("query="+q.name, func(b *testing.B) {
			var crit logs.Criteria
			if err := json.Unmarshal([]byte(q.filter), &crit); err != nil {
				b.Fatal(err)
			}
			s := ix.Search(&crit, 0, benchLogsBlocks)
			blocks := 0
			for s.Blocks.Next() {
				blocks++
			}
			s.Close()
			b.ReportAllocs()
			var res json.RawMessage
			for b.Loop() {
				out, err := a.GetLogs(context.Background(), a.View(), rpc.Params{[]byte(q.filter)})
				if err != nil {
					b.Fatal(err)
				}
				res = out.(json.RawMessage)
			}
			var found []json.RawMessage
			if err := json.Unmarshal(res, &found); err != nil || len(found) == 0 {
				b.Fatalf("%d logs, %v", len(found), err)
			}
			b.ReportMetric(float64(blocks), "blocks/op")
			b.ReportMetric(float64(len(found)), "logs/op")
		})
	}
}

// TestGetLogsLimits checks the limits' answers (decisions.md "eth_getLogs limits").
func TestGetLogsLimits(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	generateInto(t, dir, 500, 1)
	n := openLogsNode(t, dir, Config{LogsMaxResults: 50, LogsMaxRange: 300})
	n.sync(t)
	transfer := chaingen.TransferTopic.Hex()
	cases := []struct {
		name   string
		filter map[string]any
		code   int
		msg    string
		data   string
	}{
		{"too many results names a range that fits",
			map[string]any{"fromBlock": "0x0", "toBlock": "0x12c", "topics": []any{transfer}},
			rpc.CodeLimitExceeded, "query returned more than 50 results. Try with this block range [0x0, 0x", `"limit":50`},
		{"range over the maximum",
			map[string]any{"fromBlock": "0x0", "toBlock": "0x12d"}, rpc.CodeInvalidParams, "exceed maximum block range 300", ""},
		{"from after to", map[string]any{"fromBlock": "0x10", "toBlock": "0xf"}, rpc.CodeInvalidParams, "invalid block range params", ""},
		{"beyond the head", map[string]any{"fromBlock": "0x1", "toBlock": "0x1f5"}, rpc.CodeInvalidParams, "block range extends beyond current head block", ""},
		{"block hash and range", map[string]any{"blockHash": n.chain.CanonicalHash(3).Hex(), "fromBlock": "0x1"}, rpc.CodeInvalidParams,
			"cannot specify both BlockHash and FromBlock/ToBlock, choose one or the other", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			arg, _ := json.Marshal(c.filter)
			for _, a := range []*API{n.indexed, n.scanned} {
				_, err := a.GetLogs(context.Background(), a.View(), rpc.Params{arg})
				var rerr *rpc.Error
				if !errors.As(err, &rerr) || rerr.Code != c.code || !strings.Contains(rerr.Message, c.msg) {
					t.Fatalf("got %v, want code %d %q", err, c.code, c.msg)
				}
				if data, _ := json.Marshal(rerr.Data); !strings.Contains(string(data), c.data) {
					t.Fatalf("data %s, want %s", data, c.data)
				}
			}
		})
	}
	// The range named by -32005 fits: asking for it succeeds.
	_, err := n.indexed.GetLogs(context.Background(), n.indexed.View(), rpc.Params{[]byte(`{"fromBlock":"0x0","toBlock":"0x12c","topics":["` + transfer + `"]}`)})
	var rerr *rpc.Error
	errors.As(err, &rerr)
	data := rerr.Data.(map[string]any)
	res := getLogs(t, n.indexed, map[string]any{"fromBlock": data["from"], "toBlock": data["to"], "topics": []any{transfer}})
	var fits []json.RawMessage
	if err := json.Unmarshal([]byte(res), &fits); err != nil || len(fits) == 0 || len(fits) > 50 {
		t.Fatalf("the suggested range gave %d logs (%v), want 1…50", len(fits), err)
	}
}

// TestGetLogsTimeout checks the answer of a query that runs out of --rpc.logs.timeout, and
// that the request's own deadline is left to the transport.
func TestGetLogsTimeout(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	generateInto(t, dir, 300, 1)
	n := openLogsNode(t, dir, Config{})
	n.sync(t)
	arg := rpc.Params{[]byte(`{"fromBlock":"0x0","toBlock":"latest","topics":["` + chaingen.TransferTopic.Hex() + `"]}`)}
	for _, a := range []*API{n.indexed, n.scanned} {
		a.cfg.LogsTimeout = -1 // expired before the first block
		_, err := a.GetLogs(context.Background(), a.View(), arg)
		var rerr *rpc.Error
		if !errors.As(err, &rerr) || rerr.Code != rpc.CodeLimitExceeded || !strings.Contains(rerr.Message, "query timeout exceeded") {
			t.Fatalf("got %v, want -32005 query timeout exceeded", err)
		}
		a.cfg.LogsTimeout = time.Hour
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if _, err := a.GetLogs(ctx, a.View(), arg); !errors.Is(err, context.Canceled) {
			t.Fatalf("request context done: got %v, want the context's error", err)
		}
	}
}
