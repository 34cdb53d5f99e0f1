package main

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math/big"
	"net/http"
	"os"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"

	"github.com/flashrpc/flashrpc/internal/devaccounts"
	"github.com/flashrpc/flashrpc/internal/flashblocks"
	"github.com/flashrpc/flashrpc/internal/preconf"
)

// BenchmarkPreconfLatency measures, for each pre-confirmation of a dev node under a steady
// flow of log-emitting transactions, the time from the sequencer finishing it
// (preconf.Snapshot.Published) to
//
//	(a) its message arriving on the flashblocks feed,
//	(b) eth_getBlockByNumber("pending") over HTTP answering its hash (a client polling with a
//	    250 µs pause; the figure includes up to one poll period),
//	(c) its first pendingLogs notification arriving over WebSocket,
//
// first alone, then with 100 slow WebSocket subscribers (pendingLogs and newFlashblocks; half
// never read, half read one message per 100 ms, each reconnecting when it is disconnected),
// then, for comparison, with 100 subscribers of the same kinds that read everything at once.
// docs/benchmarks.md ("Pre-confirmation latency") has the method and the figures:
//
//	go test -run '^$' -bench BenchmarkPreconfLatency -benchtime 1x -timeout 60m ./cmd/flashrpc/
//
// FLASHRPC_LATENCY_PRECONFS (default 1000) sets how many pre-confirmations are measured and
// FLASHRPC_LATENCY_INTERVAL (default 50ms) the pre-confirmation interval; blocks are sealed
// every 10 intervals.
func BenchmarkPreconfLatency(b *testing.B) {
	count := envInt(b, "FLASHRPC_LATENCY_PRECONFS", 1000)
	interval := 50 * time.Millisecond
	if s := os.Getenv("FLASHRPC_LATENCY_INTERVAL"); s != "" {
		d, err := time.ParseDuration(s)
		if err != nil {
			b.Fatal(err)
		}
		interval = d
	}
	for _, load := range []struct {
		subscribers int
		slow        bool
	}{{0, false}, {100, true}, {100, false}} {
		name := fmt.Sprintf("subscribers=%d", load.subscribers)
		if load.subscribers > 0 {
			name += map[bool]string{true: "/slow", false: "/fast"}[load.slow]
		}
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				r := measureLatency(b, count, interval, load.subscribers, load.slow)
				for _, m := range r.metrics() {
					b.ReportMetric(m.value, m.unit)
				}
				fmt.Print(r.table())
			}
		})
	}
}

func envInt(b *testing.B, name string, def int) int {
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		b.Fatalf("%s: %v", name, err)
	}
	return n
}

// preconfTimes collects when each pre-confirmation was published and what the observers saw
// when. Sightings are resolved to pre-confirmations at the end: an observer may see one before
// the benchmark's own snapshot listener, the last registered, has run. Safe for concurrent use.
type preconfTimes struct {
	mu        sync.Mutex
	published map[string]time.Time   // "block/index" → Snapshot.Published
	byHash    map[common.Hash]string // partial block hash → key
	byTx      map[common.Hash]string // transaction hash → key of the pre-confirmation that added it
	sightings []sighting
	order     []string // keys of measured pre-confirmations, in order
	skip      int      // warm-up pre-confirmations not measured
}

// sighting is one observation: by the feed (a key), over HTTP (a block hash) or as a
// pendingLogs notification (a transaction hash).
type sighting struct {
	observer int
	key      string
	hash     common.Hash
	at       time.Time
}

func newPreconfTimes(skip int) *preconfTimes {
	return &preconfTimes{published: map[string]time.Time{}, byHash: map[common.Hash]string{}, byTx: map[common.Hash]string{}, skip: skip}
}

func preconfKey(block, index uint64) string { return fmt.Sprintf("%d/%d", block, index) }

// onSnapshot records a pre-confirmation that added transactions from the pool. Index 0 opens
// the block: it adds none on a plain Ethereum chain, and on the default OP Stack chain the
// deposits only (the L1-attributes deposit emits no log for the pendingLogs observer), so it
// is not measured on either.
func (p *preconfTimes) onSnapshot(s *preconf.Snapshot) {
	if s.Index == 0 || s.FirstNew == len(s.Block.Transactions()) {
		return
	}
	key := preconfKey(s.Number(), uint64(s.Index))
	p.mu.Lock()
	defer p.mu.Unlock()
	p.published[key] = s.Published
	p.byHash[s.Block.Hash()] = key
	for _, tx := range s.Block.Transactions()[s.FirstNew:] {
		p.byTx[tx.Hash()] = key
	}
	if p.skip > 0 {
		p.skip--
		return
	}
	p.order = append(p.order, key)
}

func (p *preconfTimes) measured() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.order)
}

func (p *preconfTimes) saw(s sighting) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.sightings = append(p.sightings, s)
}

// latencies returns, for each observer, the time from publication to its first sighting of
// each measured pre-confirmation, sorted.
func (p *preconfTimes) latencies(count int) (int, [3][]time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	var first [3]map[string]time.Time
	for i := range first {
		first[i] = map[string]time.Time{}
	}
	for _, s := range p.sightings {
		key := s.key
		switch s.observer {
		case 1:
			key = p.byHash[s.hash]
		case 2:
			key = p.byTx[s.hash]
		}
		if _, dup := first[s.observer][key]; key != "" && !dup {
			first[s.observer][key] = s.at
		}
	}
	n := min(count, len(p.order))
	var lat [3][]time.Duration
	for _, key := range p.order[:n] {
		for i := range lat {
			if at, ok := first[i][key]; ok {
				lat[i] = append(lat[i], at.Sub(p.published[key]))
			}
		}
	}
	for i := range lat {
		slices.Sort(lat[i])
	}
	return n, lat
}

type latencyResult struct {
	subscribers, measured, reconnects int
	slow                              bool
	interval                          time.Duration
	pollRTT                           time.Duration
	lat                               [3][]time.Duration // feed, http, pendingLogs
}

var observerNames = [3]string{"feed", "http", "pendinglogs"}

func percentile(sorted []time.Duration, q float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	return sorted[min(len(sorted)-1, int(q*float64(len(sorted))))]
}

type metric struct {
	value float64
	unit  string
}

func (r *latencyResult) metrics() []metric {
	var out []metric
	for i, l := range r.lat {
		out = append(out,
			metric{float64(percentile(l, 0.50).Microseconds()), observerNames[i] + "-p50-µs"},
			metric{float64(percentile(l, 0.99).Microseconds()), observerNames[i] + "-p99-µs"})
	}
	return out
}

func (r *latencyResult) table() string {
	var b bytes.Buffer
	kind := "fast"
	if r.slow {
		kind = "slow"
	}
	fmt.Fprintf(&b, "\npre-confirmation latency, %d %s subscribers (%d reconnects), interval %v, %d pre-confirmations, HTTP poll round trip %v + %v pause\n",
		r.subscribers, kind, r.reconnects, r.interval, r.measured, r.pollRTT.Round(time.Microsecond), pollPause)
	fmt.Fprintf(&b, "| observer | samples | p50 | p99 | max |\n|---|---|---|---|---|\n")
	for i, l := range r.lat {
		fmt.Fprintf(&b, "| %s | %d | %v | %v | %v |\n", observerNames[i], len(l),
			percentile(l, 0.5).Round(time.Microsecond), percentile(l, 0.99).Round(time.Microsecond), percentile(l, 1).Round(time.Microsecond))
	}
	return b.String()
}

// measureLatency runs one measurement: a node on timers, a transaction flow, the three
// observers and the extra subscribers, until count pre-confirmations after a warm-up.
func measureLatency(b *testing.B, count int, interval time.Duration, subscribers int, slow bool) *latencyResult {
	o := testOptions(b.TempDir())
	o.preconfInterval, o.blockTime = interval, 10*interval
	n, err := startDev(o, slog.New(slog.DiscardHandler))
	if err != nil {
		b.Fatal(err)
	}
	n.Endpoints().Serve()
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		n.Endpoints().Shutdown(ctx)
		n.Close()
	}()
	preURL := n.Endpoints()[1].URL()
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	var wg sync.WaitGroup
	defer wg.Wait()
	defer stop()

	h := &httpRPC{url: preURL, client: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 16}}}
	keys := testOptionsAccountsB(b)
	emitter := deployForBench(b, h, keys[0])

	times := newPreconfTimes(20)
	n.Preconf().OnSnapshot(times.onSnapshot)

	// Observers.
	feed, err := flashblocks.Dial(ctx, n.Feed().URL)
	if err != nil {
		b.Fatal(err)
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			raw, err := feed.NextRaw(ctx)
			if err != nil {
				return
			}
			now := time.Now()
			if p, err := flashblocks.Decode(raw); err == nil {
				times.saw(sighting{observer: 0, key: preconfKey(p.Metadata.BlockNumber, p.Index), at: now})
			}
		}
	}()
	logsWS := subscribeRaw(b, ctx, wsURL(preURL), fmt.Sprintf(`["pendingLogs",{"address":"%s"}]`, emitter.Hex()))
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			_, msg, err := logsWS.Read(ctx)
			if err != nil {
				return
			}
			now := time.Now()
			var n struct {
				Params struct {
					Result struct {
						TxHash common.Hash `json:"transactionHash"`
					} `json:"result"`
				} `json:"params"`
			}
			if json.Unmarshal(msg, &n) == nil {
				times.saw(sighting{observer: 2, hash: n.Params.Result.TxHash, at: now})
			}
		}
	}()
	var polls, pollTime atomic.Int64
	wg.Add(1)
	go func() {
		defer wg.Done()
		for ; ctx.Err() == nil; time.Sleep(pollPause) {
			start := time.Now()
			hash, err := h.pendingHash()
			if err != nil {
				continue
			}
			now := time.Now()
			polls.Add(1)
			pollTime.Add(int64(now.Sub(start)))
			times.saw(sighting{observer: 1, hash: hash, at: now})
		}
	}()

	// Load: a steady flow of log-emitting calls, five per interval on average.
	wg.Add(1)
	go func() {
		defer wg.Done()
		sendFlow(ctx, b, h, keys[1:], emitter, interval/5)
	}()
	var reconnects atomic.Int64
	for i := range subscribers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if slow {
				slowSubscriber(ctx, wsURL(preURL), emitter, i%2 == 0, &reconnects)
			} else {
				fastSubscriber(ctx, wsURL(preURL), emitter)
			}
		}()
	}

	for deadline := time.Now().Add(time.Duration(count+100) * interval * 3); times.measured() < count; time.Sleep(interval) {
		if time.Now().After(deadline) {
			b.Fatalf("only %d pre-confirmations with transactions measured", times.measured())
		}
	}
	time.Sleep(200 * time.Millisecond) // let the observers catch the last ones
	stop()
	feed.Close()
	logsWS.CloseNow()

	r := &latencyResult{subscribers: subscribers, slow: slow, interval: interval, reconnects: int(reconnects.Load())}
	if p := polls.Load(); p > 0 {
		r.pollRTT = time.Duration(pollTime.Load() / p)
	}
	r.measured, r.lat = times.latencies(count)
	return r
}

// pollPause is the pause between two polls of the pending block: polling back to back would
// take a whole CPU of the two the measurements ran on from the node.
const pollPause = 250 * time.Microsecond

var (
	pendingBody = []byte(`{"jsonrpc":"2.0","id":1,"method":"eth_getBlockByNumber","params":["pending",false]}`)
	hashKey     = []byte(`"hash":"`)
)

// pendingHash asks for the pending block and picks its hash out of the answer without decoding
// the rest (a block with transaction hashes has one "hash" member).
func (h *httpRPC) pendingHash() (common.Hash, error) {
	resp, err := h.client.Post(h.url, "application/json", bytes.NewReader(pendingBody))
	if err != nil {
		return common.Hash{}, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return common.Hash{}, err
	}
	i := bytes.Index(raw, hashKey)
	if i < 0 || len(raw) < i+len(hashKey)+66 {
		return common.Hash{}, fmt.Errorf("no hash in %.100s", raw)
	}
	return common.HexToHash(string(raw[i+len(hashKey) : i+len(hashKey)+66])), nil
}

// httpRPC is a minimal JSON-RPC client over one keep-alive HTTP connection pool.
type httpRPC struct {
	url    string
	client *http.Client
}

func (h *httpRPC) call(result any, method string, params ...any) error {
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	if err != nil {
		return err
	}
	resp, err := h.client.Post(h.url, "application/json", bytes.NewReader(body))
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	var out struct {
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		return err
	}
	if out.Error != nil {
		return fmt.Errorf("%s: %s", method, out.Error.Message)
	}
	if result == nil {
		return nil
	}
	return json.Unmarshal(out.Result, result)
}

func testOptionsAccountsB(b *testing.B) []*ecdsa.PrivateKey {
	accs, err := devaccounts.Derive(devaccounts.TestMnemonic, 10)
	if err != nil {
		b.Fatal(err)
	}
	keys := make([]*ecdsa.PrivateKey, len(accs))
	for i, a := range accs {
		keys[i] = a.Key
	}
	return keys
}

// benchTx signs a dynamic-fee transaction; b may be used from any goroutine only through
// Error, so a signing failure (which cannot happen with these keys) is reported that way.
func benchTx(b *testing.B, key *ecdsa.PrivateKey, nonce uint64, to *common.Address, gas uint64, data []byte) []byte {
	chainID := big.NewInt(1337)
	tx, err := types.SignNewTx(key, types.LatestSignerForChainID(chainID), &types.DynamicFeeTx{
		ChainID: chainID, Nonce: nonce, To: to, Gas: gas, Data: data,
		GasFeeCap: big.NewInt(10 * params.GWei), GasTipCap: big.NewInt(params.GWei),
	})
	if err != nil {
		b.Error(err)
		return nil
	}
	raw, _ := tx.MarshalBinary()
	return raw
}

// deployForBench deploys the log emitter and waits until it is sealed.
func deployForBench(b *testing.B, h *httpRPC, key *ecdsa.PrivateKey) common.Address {
	var hash common.Hash
	if err := h.call(&hash, "eth_sendRawTransaction", hexutil.Bytes(benchTx(b, key, 0, nil, 300_000, logInit))); err != nil {
		b.Fatal(err)
	}
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		var r map[string]any
		if err := h.call(&r, "eth_getTransactionReceipt", hash); err == nil && r != nil && r["blockHash"] != (common.Hash{}).Hex() {
			return crypto.CreateAddress(crypto.PubkeyToAddress(key.PublicKey), 0)
		}
	}
	b.Fatal("emitter not sealed within a minute")
	return common.Address{}
}

// sendFlow sends one log-emitting call every gap, rotating over keys, until ctx ends.
func sendFlow(ctx context.Context, b *testing.B, h *httpRPC, keys []*ecdsa.PrivateKey, emitter common.Address, gap time.Duration) {
	nonces := make([]uint64, len(keys))
	t := time.NewTicker(gap)
	defer t.Stop()
	for i := 0; ; i++ {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		k := i % len(keys)
		raw := benchTx(b, keys[k], nonces[k], &emitter, 60_000, nil)
		if err := h.call(nil, "eth_sendRawTransaction", hexutil.Bytes(raw)); err != nil {
			if ctx.Err() != nil {
				return
			}
			var n hexutil.Uint64 // resynchronise
			if h.call(&n, "eth_getTransactionCount", crypto.PubkeyToAddress(keys[k].PublicKey), "pending") == nil {
				nonces[k] = uint64(n)
			}
			continue
		}
		nonces[k]++
	}
}

// subscribeRaw opens a WebSocket and subscribes with the params array given as JSON.
func subscribeRaw(b *testing.B, ctx context.Context, url, params string) *websocket.Conn {
	c, err := dialSubscribe(ctx, url, params)
	if err != nil {
		b.Fatal(err)
	}
	return c
}

func dialSubscribe(ctx context.Context, url string, params ...string) (*websocket.Conn, error) {
	c, _, err := websocket.Dial(ctx, url, nil)
	if err != nil {
		return nil, err
	}
	c.SetReadLimit(-1)
	for i, p := range params {
		req := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"eth_subscribe","params":%s}`, i+1, p)
		if err := c.Write(ctx, websocket.MessageText, []byte(req)); err != nil {
			c.CloseNow()
			return nil, err
		}
	}
	return c, nil
}

// slowSubscriber keeps one slow subscriber to pendingLogs and newFlashblocks connected until
// ctx ends. A stalled one never reads; the other reads one message per 100 ms, well below the
// rate notifications come at. Either falls behind until the node disconnects it as a slow
// consumer, which a client that does not read cannot notice: each connection is replaced after
// slowCycle (longer than it takes its socket buffers and send queue to fill) or when a read
// fails.
func slowSubscriber(ctx context.Context, url string, emitter common.Address, stalled bool, reconnects *atomic.Int64) {
	for ctx.Err() == nil {
		c, err := dialSubscribe(ctx, url, fmt.Sprintf(`["pendingLogs",{"address":"%s"}]`, emitter.Hex()), `["newFlashblocks"]`)
		if err != nil {
			time.Sleep(10 * time.Millisecond)
			continue
		}
		cycle, cancel := context.WithTimeout(ctx, slowCycle)
		if stalled {
			<-cycle.Done()
		} else {
			for {
				if _, _, err := c.Read(cycle); err != nil {
					break
				}
				time.Sleep(100 * time.Millisecond)
			}
		}
		cancel()
		c.CloseNow()
		if ctx.Err() == nil {
			reconnects.Add(1)
		}
	}
}

// fastSubscriber subscribes to pendingLogs and newFlashblocks and reads everything as it
// comes, until ctx ends.
func fastSubscriber(ctx context.Context, url string, emitter common.Address) {
	c, err := dialSubscribe(ctx, url, fmt.Sprintf(`["pendingLogs",{"address":"%s"}]`, emitter.Hex()), `["newFlashblocks"]`)
	if err != nil {
		return
	}
	defer c.CloseNow()
	for {
		if _, _, err := c.Read(ctx); err != nil {
			return
		}
	}
}

// slowCycle is how long a slow subscriber keeps one connection.
const slowCycle = 30 * time.Second
