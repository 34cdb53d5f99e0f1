// Command sequencer measures the dev sequencer's sustained capacity: it offers transactions at
// rising rates to a running `flashrpc dev` node and, from its flashblocks feed, reports for
// each rate the transactions per second and the gas per second that were pre-confirmed and the
// interval between pre-confirmations (p50, p99, max). The node's capacity is the highest rate
// it keeps up with (at least 99% of the offered transactions pre-confirmed in the measured
// window) while the interval's p99 stays within ±20 ms of 200 ms. docs/benchmarks.md
// ("Sequencer capacity") has the method and the figures.
//
//	flashrpc dev --accounts 500 --gas-limit 1000000000 &
//	go run ./scripts/bench/sequencer --rates 1000,2000,3000,4000,5000
//	go run ./scripts/bench/sequencer --mix realistic --rates 2000,4000
//
// On a chain without pre-confirmations (`flashrpc dev --network base-mainnet`, Base since Denim:
// a block every 200 ms) --heads ws://127.0.0.1:8545 measures the interval between sealed blocks
// from the standard endpoint's newHeads instead of the feed, and how far each notification
// arrives after the block's timestampMs (heads.go); --node-log, the node's debug log, adds each
// window's seal costs (seallog.go) and its builds by kind (buildlog.go):
//
//	flashrpc dev --network base-mainnet --accounts 500 --gas-limit 100000000 --log.level debug 2>node.log &
//	go run ./scripts/bench/sequencer --mix realistic --heads ws://127.0.0.1:8545 --node-log node.log --rates 1000,2000
//
// --mix transfers (the default) sends ETH transfers; --mix realistic sends internal/benchmix's
// mix (40 % ETH transfers, 35 % ERC-20 transfers, 25 % Uniswap V2-style swaps), after
// deploying its contracts and giving every sender tokens and approvals. The senders are the
// node's dev accounts (the test mnemonic, --accounts of the node), each sending with
// consecutive nonces; every transaction is signed and hex-encoded before its rate's run. The
// exit status is 1 when the node did not keep up at some rate.
//
// Beside the node on the same cores the load generator's CPU is taken from the node's, so each
// window's own CPU is printed to stderr (selfcpu.go), and --cpuprofile FILE writes its CPU
// profile of the last rate's window. The feed's messages are scanned, not decoded (feedscan.go).
package main

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"math/big"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"

	"github.com/flashrpc/flashrpc/internal/benchmix"
	"github.com/flashrpc/flashrpc/internal/devaccounts"
	"github.com/flashrpc/flashrpc/internal/flashblocks"
)

func main() {
	rpcURL := flag.String("rpc", "http://127.0.0.1:8547", "the node's pre-confirmed endpoint")
	feedURL := flag.String("feed", "ws://127.0.0.1:8548", "the node's flashblocks feed; empty: poll sealed blocks over --rpc instead (a node without a feed, e.g. anvil; the interval is then the block time)")
	accounts := flag.Int("accounts", 500, "dev accounts to send from (the node's --accounts must be at least this)")
	ratesFlag := flag.String("rates", "1000,2000,3000,4000,5000", "offered transfers per second, one run each")
	duration := flag.Duration("duration", 15*time.Second, "measured time per rate; at 200 ms a window of 15 s has 75 intervals, whose p99 is their largest: 60s gives 300, a p99 that one slow interval does not decide")
	warmup := flag.Duration("warmup", 3*time.Second, "time per rate before measuring")
	interval := flag.Duration("interval", 200*time.Millisecond, "the node's pre-confirmation interval")
	flag.IntVar(&slowest, "slowest", 0, "print each window's N longest intervals and the flashblock (block/index) that ended each, to stderr")
	headsURL := flag.String("heads", "", "the standard endpoint's WebSocket URL: measure the interval between sealed blocks from its newHeads instead of the feed (a chain without pre-confirmations)")
	nodeLog := flag.String("node-log", "", "the node's log file (--log.level debug, text format): print each window's seal costs and builds")
	datadir := flag.String("datadir", "", "the node's datadir: print its growth over each rate's blocks (growth.go)")
	profileURL := flag.String("cpuprofile-url", "", "the node's CPU profile URL (http://127.0.0.1:9464/debug/pprof/profile with --metrics.port 9464 --pprof): profile the last rate's window")
	profileOut := flag.String("cpuprofile-out", "cpu.pprof", "where --cpuprofile-url's profile is written")
	selfProfile := flag.String("cpuprofile", "", "write the load generator's own CPU profile of the last rate's window to this file")
	mixFlag := flag.String("mix", "transfers", "transfers: ETH transfers; realistic: internal/benchmix's mix")
	flag.Parse()
	var rates []int
	for _, s := range strings.Split(*ratesFlag, ",") {
		r, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || r <= 0 {
			log.Fatalf("--rates: %q is not a positive number", s)
		}
		rates = append(rates, r)
	}
	accs, err := devaccounts.Derive(devaccounts.TestMnemonic, *accounts)
	if err != nil {
		log.Fatal(err)
	}
	c := &client{url: *rpcURL, http: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 16}}}
	chainID, err := c.chainID()
	if err != nil {
		log.Fatalf("%s: %v", *rpcURL, err)
	}
	var mix *benchmix.Mix
	switch *mixFlag {
	case "transfers":
	case "realistic":
		if mix, err = setupMix(c, accs, chainID); err != nil {
			log.Fatalf("set-up of the mix: %v", err)
		}
	default:
		log.Fatalf("--mix: %q is neither transfers nor realistic", *mixFlag)
	}
	var feed *feedWatch
	switch {
	case *headsURL != "":
		feed = newHeadsWatch(*headsURL, c)
	case *feedURL != "":
		feed = newFeedWatch(*feedURL)
	default:
		feed = newBlockWatch(c)
	}
	if *headsURL != "" {
		fmt.Printf("| offered tx/s | included tx/s | Mgas/s | kept up | block interval p50 | p99 | max | blocks | refused | lag after timestampMs p50 | max | drift |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	} else {
		fmt.Printf("| offered tx/s | pre-confirmed tx/s | Mgas/s | kept up | interval p50 | p99 | max | flashblocks | refused |\n|---|---|---|---|---|---|---|---|---|\n")
	}
	var seals, buildRows, growths []string
	allOK := true
	for i, rate := range rates {
		var before growthMark
		if *datadir != "" {
			if before, err = mark(c, *datadir); err != nil {
				log.Fatalf("rate %d: datadir: %v", rate, err)
			}
		}
		var profile chan error
		var atWindow func()
		if *profileURL != "" && i == len(rates)-1 {
			profile = make(chan error, 1)
			atWindow = func() { profile <- fetchProfile(*profileURL, *duration, *profileOut) }
		}
		self := &selfWindow{}
		if i == len(rates)-1 {
			self.profile = *selfProfile
		}
		r, err := runRate(c, feed, accs, chainID, mix, rate, *warmup, *duration, *interval, atWindow, self)
		if err != nil {
			log.Fatalf("rate %d: %v", rate, err)
		}
		if err := self.report(rate, *duration); err != nil {
			log.Fatalf("rate %d: %v", rate, err)
		}
		if profile != nil {
			if err := <-profile; err != nil {
				log.Fatalf("rate %d: CPU profile: %v", rate, err)
			}
			fmt.Fprintf(os.Stderr, "rate %d: CPU profile of the node written to %s\n", rate, *profileOut)
		}
		ok := r.included >= 0.99*float64(rate) && abs(r.p99-*interval) <= 20*time.Millisecond
		allOK = allOK && ok
		fmt.Printf("| %d | %.0f | %.1f | %v | %v | %v | %v | %d | %d |", rate, r.included, r.mgas, ok, r.p50.Round(time.Millisecond), r.p99.Round(time.Millisecond), r.max.Round(time.Millisecond), r.flashblocks, r.refused)
		if *headsURL != "" {
			fmt.Printf(" %v | %v | %v |", r.lagP50.Round(time.Millisecond), r.lagMax.Round(time.Millisecond), r.drift.Round(time.Millisecond))
		}
		fmt.Println()
		if *nodeLog != "" {
			l := &sealLog{path: *nodeLog}
			costs, late, skipped, err := l.window(r.blocks, r.from, r.to)
			if err != nil {
				log.Fatalf("rate %d: node log: %v", rate, err)
			}
			if len(costs) > 0 {
				seals = append(seals, sealSummary(rate, costs, late, skipped, *interval))
			}
			built, err := builds(*nodeLog, r.from, r.to)
			if err != nil {
				log.Fatalf("rate %d: node log: %v", rate, err)
			}
			if len(built) > 0 {
				buildRows = append(buildRows, buildSummary(rate, built))
			}
		}
		if refusals := c.takeRefusals(); len(refusals) > 0 {
			fmt.Fprintf(os.Stderr, "rate %d: refused %v\n", rate, refusals)
		}
		// Let the pool drain before the next rate.
		if err := c.waitDrained(accs); err != nil {
			log.Fatal(err)
		}
		if *datadir != "" {
			g, err := before.growth(c, *datadir)
			if err != nil {
				log.Fatalf("rate %d: datadir: %v", rate, err)
			}
			growths = append(growths, fmt.Sprintf("rate %d: %v", rate, g))
		}
	}
	if len(growths) > 0 {
		fmt.Printf("\nDatadir growth (%s):\n\n%s\n", *datadir, strings.Join(growths, "\n"))
	}
	if len(seals) > 0 {
		fmt.Printf("\nSeal costs (from the node's log):\n\n%s\n%s\n", sealHeader, strings.Join(seals, "\n"))
	}
	if len(buildRows) > 0 {
		fmt.Printf("\nBuilds (from the node's log):\n\n%s\n%s\n", buildHeader, strings.Join(buildRows, "\n"))
	}
	if !allOK {
		os.Exit(1)
	}
}

func abs(d time.Duration) time.Duration {
	if d < 0 {
		return -d
	}
	return d
}

type rateResult struct {
	included      float64 // pre-confirmed transactions per second in the measured window
	mgas          float64 // gas pre-confirmed per second in the measured window, in millions
	p50, p99, max time.Duration
	flashblocks   int
	refused       int64

	// With newHeads (heads.go): how late the notifications arrived after their block's
	// timestampMs, and the window's blocks for the seal costs (seallog.go).
	lagP50, lagMax, drift time.Duration
	blocks                []uint64
	from, to              time.Time
}

// runRate offers rate transfers per second for warmup+duration and measures the window after
// the warm-up. atWindow, when set, runs on its own goroutine when the window starts; self
// measures the load generator's own CPU over the window.
func runRate(c *client, feed *feedWatch, accs []devaccounts.Account, chainID *big.Int, mix *benchmix.Mix, rate int, warmup, duration, interval time.Duration, atWindow func(), self *selfWindow) (*rateResult, error) {
	total := int(float64(rate) * (warmup + duration).Seconds())
	raws, err := signTransfers(c, accs, chainID, mix, total)
	if err != nil {
		return nil, err
	}
	var refused atomic.Int64
	start := time.Now()
	measureFrom, measureTo := start.Add(warmup), start.Add(warmup+duration)
	feed.reset()
	if atWindow != nil {
		time.AfterFunc(warmup, atWindow)
	}
	selfEnded := make(chan struct{})
	go func() {
		time.Sleep(time.Until(measureFrom))
		self.begin()
		time.Sleep(time.Until(measureTo))
		self.end()
		close(selfEnded)
	}()
	// Send in batches every 10 ms, spread over 4 connections.
	const tick = 10 * time.Millisecond
	perTick := max(1, rate/int(time.Second/tick))
	work := make(chan [][]byte, 64)
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for batch := range work {
				n, err := c.sendBatch(batch)
				if err != nil {
					log.Printf("send: %v", err)
				}
				refused.Add(int64(n))
			}
		})
	}
	ticker := time.NewTicker(tick)
	for sent := 0; sent < len(raws); {
		<-ticker.C
		due := min(len(raws), int(float64(rate)*time.Since(start).Seconds()))
		for sent < due {
			end := min(due, sent+max(50, perTick/4))
			work <- raws[sent:end]
			sent = end
		}
	}
	ticker.Stop()
	close(work)
	wg.Wait()
	time.Sleep(time.Until(measureTo) + time.Second)
	<-selfEnded
	txs, gas, gaps, blocks, err := feed.window(measureFrom, measureTo, interval)
	if err != nil {
		return nil, err
	}
	r := &rateResult{included: float64(txs) / duration.Seconds(), mgas: float64(gas) / duration.Seconds() / 1e6, flashblocks: blocks, refused: refused.Load(), from: measureFrom, to: measureTo}
	in := feed.between(measureFrom, measureTo)
	r.lagP50, r.lagMax, r.drift = lagStats(in)
	for _, e := range in {
		r.blocks = append(r.blocks, e.block)
	}
	if len(gaps) > 0 {
		slices.Sort(gaps)
		r.p50, r.p99, r.max = gaps[len(gaps)/2], gaps[len(gaps)*99/100], gaps[len(gaps)-1]
	}
	return r, nil
}

// signTransfers signs n transfers (or, with mix, n transactions of the mix) round-robin over
// accs, with consecutive nonces from each account's pending nonce, and returns each as the
// hex text that goes into a request (hexTx), encoded here, before the rate's run.
func signTransfers(c *client, accs []devaccounts.Account, chainID *big.Int, mix *benchmix.Mix, n int) ([][]byte, error) {
	signer := types.LatestSignerForChainID(chainID)
	nonces := make([]uint64, len(accs))
	for i, a := range accs {
		nonce, err := c.pendingNonce(a.Address)
		if err != nil {
			return nil, err
		}
		nonces[i] = nonce
	}
	to := common.HexToAddress("0x00000000000000000000000000000000000b0b00")
	raws := make([][]byte, n)
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		signErr error
	)
	for w := range 2 {
		wg.Go(func() {
			for i := w; i < n; i += 2 {
				a := i % len(accs)
				var tx *types.Transaction
				var err error
				if mix != nil {
					tx, err = mix.Tx(accs[a].Key, nonces[a]+uint64(i/len(accs)), uint64(i))
				} else {
					tx, err = types.SignNewTx(accs[a].Key, signer, &types.DynamicFeeTx{
						ChainID: chainID, Nonce: nonces[a] + uint64(i/len(accs)), To: &to, Value: big.NewInt(1), Gas: params.TxGas,
						GasFeeCap: big.NewInt(params.GWei), GasTipCap: big.NewInt(1000),
					})
				}
				if err == nil {
					raws[i], err = hexTx(tx)
				}
				if err != nil {
					mu.Lock()
					signErr = err
					mu.Unlock()
					return
				}
			}
		})
	}
	wg.Wait()
	return raws, signErr
}

// hexTx returns a transaction's EIP-2718 encoding as 0x-prefixed hex: the parameter of
// eth_sendRawTransaction.
func hexTx(tx *types.Transaction) ([]byte, error) {
	raw, err := tx.MarshalBinary()
	if err != nil {
		return nil, err
	}
	return hexutil.Bytes(raw).MarshalText()
}

// client speaks JSON-RPC over HTTP.
type client struct {
	url  string
	http *http.Client

	mu       sync.Mutex
	refusals map[string]int // guarded by mu
}

type rpcResponse struct {
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Message string `json:"message"`
	} `json:"error"`
}

func (c *client) post(body []byte) ([]byte, error) {
	resp, err := c.http.Post(c.url, "application/json", bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var buf bytes.Buffer
	if resp.ContentLength > 0 {
		buf.Grow(int(resp.ContentLength) + bytes.MinRead)
	}
	_, err = buf.ReadFrom(resp.Body)
	return buf.Bytes(), err
}

func (c *client) call(method string, params ...any) (json.RawMessage, error) {
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	out, err := c.post(body)
	if err != nil {
		return nil, err
	}
	var r rpcResponse
	if err := json.Unmarshal(out, &r); err != nil {
		return nil, err
	}
	if r.Error != nil {
		return nil, fmt.Errorf("%s: %s", method, r.Error.Message)
	}
	return r.Result, nil
}

func (c *client) chainID() (*big.Int, error) {
	raw, err := c.call("eth_chainId")
	if err != nil {
		return nil, err
	}
	var id hexutil.Big
	return (*big.Int)(&id), json.Unmarshal(raw, &id)
}

func (c *client) pendingNonce(a common.Address) (uint64, error) {
	raw, err := c.call("eth_getTransactionCount", a, "pending")
	if err != nil {
		return 0, err
	}
	var n hexutil.Uint64
	return uint64(n), json.Unmarshal(raw, &n)
}

// waitDrained waits until no sender has transactions left in the pool, at most a minute: on
// the pre-confirmed endpoint `latest` counts pre-confirmed transactions, `pending` pooled
// ones too.
func (c *client) waitDrained(accs []devaccounts.Account) error {
	deadline := time.Now().Add(time.Minute)
	for _, a := range accs {
		for {
			pending, err := c.pendingNonce(a.Address)
			if err != nil {
				return err
			}
			raw, err := c.call("eth_getTransactionCount", a.Address, "latest")
			if err != nil {
				return err
			}
			var latest hexutil.Uint64
			if err := json.Unmarshal(raw, &latest); err != nil {
				return err
			}
			if uint64(latest) >= pending {
				break
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("the pool did not drain: %s has nonce %d sealed, %d pending", a.Address, latest, pending)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	return nil
}

// sendBatch sends transactions (hexTx's text) in one batch request and returns how many were
// refused.
func (c *client) sendBatch(hexes [][]byte) (int, error) {
	out, err := c.post(batchBody(hexes))
	if err != nil {
		return len(hexes), err
	}
	// An answer without any error member refused nothing: its results are hashes, so it is
	// not decoded (a batch of results is most of the load generator's answers).
	if len(out) > 0 && out[0] == '[' && !bytes.Contains(out, []byte(`"error"`)) && json.Valid(out) {
		return 0, nil
	}
	var rs []rpcResponse
	if err := json.Unmarshal(out, &rs); err != nil {
		return len(hexes), fmt.Errorf("batch answer: %w", err)
	}
	refused := 0
	for _, r := range rs {
		if r.Error != nil {
			refused++
			c.noteRefusal(r.Error.Message)
		}
	}
	return refused, nil
}

// batchBody returns the JSON-RPC batch of one eth_sendRawTransaction per transaction, with ids
// from 0, in one allocation.
func batchBody(hexes [][]byte) []byte {
	const head, tail = `{"jsonrpc":"2.0","id":`, `,"method":"eth_sendRawTransaction","params":["`
	size := 2
	for _, h := range hexes {
		size += len(head) + 20 + len(tail) + len(h) + len(`"]},`) // 20: an id's most digits
	}
	b := make([]byte, 0, size)
	b = append(b, '[')
	for i, h := range hexes {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, head...)
		b = strconv.AppendInt(b, int64(i), 10)
		b = append(b, tail...)
		b = append(b, h...)
		b = append(b, `"]}`...)
	}
	return append(b, ']')
}

// noteRefusal counts a refusal by the start of its message.
func (c *client) noteRefusal(msg string) {
	if i := strings.IndexByte(msg, ':'); i > 0 {
		msg = msg[:i]
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.refusals == nil {
		c.refusals = map[string]int{}
	}
	c.refusals[msg]++
}

// takeRefusals returns the refusals counted since the last call.
func (c *client) takeRefusals() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	r := c.refusals
	c.refusals = nil
	return r
}

// feedWatch records every flashblock of the feed: when it arrived, its index and how many
// transactions other than deposits it added.
type feedWatch struct {
	mu     sync.Mutex
	events []feedEvent
	// countTxs, when set, counts the transactions of a whole-block event recorded without them
	// (txs -1; newHeadsWatch), denim when the block carries a millisecond time.
	countTxs func(block uint64, denim bool) (int, error)
}

type feedEvent struct {
	at    time.Time
	block uint64
	index uint64
	txs   int
	gas   uint64 // the block's cumulative gas used
	whole bool   // a whole sealed block (newBlockWatch, newHeadsWatch), not a flashblock
	tms   uint64 // the block's timestampMs (newHeadsWatch; 0 before Denim)
}

func newFeedWatch(url string) *feedWatch {
	f := &feedWatch{}
	ctx := context.Background()
	c, err := flashblocks.Dial(ctx, url)
	if err != nil {
		log.Fatalf("feed %s: %v", url, err)
	}
	go func() {
		for {
			raw, err := c.NextRaw(ctx)
			if err != nil {
				fmt.Fprintln(os.Stderr, "feed:", err)
				return
			}
			now := time.Now()
			s, err := summarizeFlashblock(raw)
			if err != nil {
				continue
			}
			f.mu.Lock()
			f.events = append(f.events, feedEvent{at: now, block: s.block, index: s.index, txs: s.txs, gas: s.gas})
			f.mu.Unlock()
		}
	}()
	return f
}

// newBlockWatch polls c for new sealed blocks every 50 ms and records each as one event, as
// newFeedWatch records flashblocks: when it was seen and the transactions and gas it holds. It
// is for nodes without a flashblocks feed; every transaction counts (an OP Stack block's
// L1-attributes deposit too: one per block).
func newBlockWatch(c *client) *feedWatch {
	f := &feedWatch{}
	go func() {
		var next uint64
		for {
			raw, err := c.call("eth_blockNumber")
			var head hexutil.Uint64
			if err == nil {
				err = json.Unmarshal(raw, &head)
			}
			if err != nil {
				fmt.Fprintln(os.Stderr, "blocks:", err)
				time.Sleep(time.Second)
				continue
			}
			if next == 0 {
				next = uint64(head) + 1
			}
			for ; next <= uint64(head); next++ {
				raw, err := c.call("eth_getBlockByNumber", hexutil.Uint64(next), false)
				var b struct {
					Transactions []json.RawMessage `json:"transactions"`
					GasUsed      hexutil.Uint64    `json:"gasUsed"`
				}
				if err == nil {
					err = json.Unmarshal(raw, &b)
				}
				if err != nil {
					fmt.Fprintln(os.Stderr, "block:", err)
					break
				}
				f.mu.Lock()
				f.events = append(f.events, feedEvent{at: time.Now(), block: next, index: 1, txs: len(b.Transactions), gas: uint64(b.GasUsed), whole: true})
				f.mu.Unlock()
			}
			time.Sleep(50 * time.Millisecond)
		}
	}()
	return f
}

func (f *feedWatch) reset() {
	f.mu.Lock()
	f.events = f.events[:0]
	f.mu.Unlock()
}

// window returns, for the flashblocks that arrived between from and to, the transactions other
// than deposits they added, the gas the flashblocks after index 0 added, the intervals between
// consecutive pre-confirmations and their count. Pre-confirmation
// index 0 opens a block together with the previous block's seal, and at a block boundary the
// sequencer's two timers (pre-confirmation and seal) fire together, so intervals are taken
// between flashblocks of index 1 and above, and a gap under half the interval (two timers at
// one instant) is not an interval. Between whole sealed blocks every gap is an interval (a
// late block is followed by a short one).
func (f *feedWatch) window(from, to time.Time, interval time.Duration) (txs int, gas uint64, gaps []time.Duration, flashblocks int, err error) {
	var ended []gapEnd
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.countTxs != nil {
		for i, e := range f.events {
			if e.txs < 0 && !e.at.Before(from) && !e.at.After(to) {
				if f.events[i].txs, err = f.countTxs(e.block, e.tms > 0); err != nil {
					return 0, 0, nil, 0, err
				}
			}
		}
	}
	var last time.Time
	var prev feedEvent
	for _, e := range f.events {
		before := prev
		prev = e
		if e.at.Before(from) || e.at.After(to) {
			continue
		}
		flashblocks++
		txs += e.txs
		if e.index == 0 {
			continue
		}
		switch {
		case e.whole:
			gas += e.gas
		case before.block == e.block && e.gas >= before.gas:
			gas += e.gas - before.gas
		}
		if !last.IsZero() {
			if gap := e.at.Sub(last); gap >= interval/2 || e.whole {
				gaps = append(gaps, gap)
				ended = append(ended, gapEnd{gap, e.block, e.index, e.whole})
			}
		}
		last = e.at
	}
	if slowest > 0 {
		slices.SortFunc(ended, func(a, b gapEnd) int { return int(b.gap - a.gap) })
		for _, g := range ended[:min(slowest, len(ended))] {
			if g.whole {
				fmt.Fprintf(os.Stderr, "interval %v ended by block %d\n", g.gap.Round(time.Millisecond), g.block)
			} else {
				fmt.Fprintf(os.Stderr, "interval %v ended by block %d index %d\n", g.gap.Round(time.Millisecond), g.block, g.index)
			}
		}
	}
	return txs, gas, gaps, flashblocks, nil
}

// between returns the events that arrived between from and to.
func (f *feedWatch) between(from, to time.Time) []feedEvent {
	f.mu.Lock()
	defer f.mu.Unlock()
	var in []feedEvent
	for _, e := range f.events {
		if !e.at.Before(from) && !e.at.After(to) {
			in = append(in, e)
		}
	}
	return in
}

// slowest is the --slowest flag: how many of a window's longest intervals to print.
var slowest int

// gapEnd is an interval and the flashblock that ended it.
type gapEnd struct {
	gap          time.Duration
	block, index uint64
	whole        bool // a sealed block's interval (newHeads), not a flashblock's
}

// setupMix deploys the realistic mix's contracts from accs[0] and gives every account tokens
// and approvals (benchmix.Setup), and waits until all of it is pre-confirmed.
func setupMix(c *client, accs []devaccounts.Account, chainID *big.Int) (*benchmix.Mix, error) {
	nonces := make([]uint64, len(accs))
	keys := make([]*ecdsa.PrivateKey, len(accs))
	for i, a := range accs {
		n, err := c.pendingNonce(a.Address)
		if err != nil {
			return nil, err
		}
		nonces[i], keys[i] = n, a.Key
	}
	// A fee cap of 100 gwei: anvil's base fee starts at 1 gwei and rises with full blocks.
	mix := benchmix.New(chainID, accs[0].Address, nonces[0], big.NewInt(100*params.GWei), big.NewInt(1000))
	deployer := nonces[0]
	nonces[0] += benchmix.SetupDeployer
	txs, err := mix.Setup(accs[0].Key, deployer, keys, nonces)
	if err != nil {
		return nil, err
	}
	for start := 0; start < len(txs); start += 200 {
		var raws [][]byte
		for _, tx := range txs[start:min(len(txs), start+200)] {
			raw, err := hexTx(tx)
			if err != nil {
				return nil, err
			}
			raws = append(raws, raw)
		}
		if n, err := c.sendBatch(raws); err != nil || n > 0 {
			return nil, fmt.Errorf("set-up: %d refused (%v): %v", n, c.takeRefusals(), err)
		}
	}
	if err := c.waitDrained(accs); err != nil {
		return nil, err
	}
	fmt.Fprintf(os.Stderr, "mix set up: %d transactions\n", len(txs))
	return mix, nil
}
