package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/big"
	"os"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/rlp"
	gethrpc "github.com/ethereum/go-ethereum/rpc"

	"github.com/flashrpc/flashrpc/internal/chain"
	"github.com/flashrpc/flashrpc/internal/cputime"
	"github.com/flashrpc/flashrpc/internal/node"
	"github.com/flashrpc/flashrpc/internal/preconf"
)

// BenchmarkReplicaLag measures how long after the primary a replica serves a
// pre-confirmation: from the primary's snapshot being published (readers of the primary see
// it) to the replica's snapshot of the same partial block being published, through the feed
// (WebSocket on loopback), decoding, re-execution and verification. Each iteration sends a
// transfer, pre-confirms it on the primary (dev_preconfirm) and waits for the replica; every
// tenth seals the block (the next index 0 then follows the replica's own seal of the block).
// Primary and replica run in this process and share its CPUs. state=remote runs the replica
// on the primary's state (--state remote): each flashblock's accounts are read from the
// primary, and index 0 waits for the primary's RPC to show its parent.
func BenchmarkReplicaLag(b *testing.B) {
	for _, state := range []string{"local", "remote"} {
		b.Run("state="+state, func(b *testing.B) { benchReplicaLag(b, state) })
	}
}

func benchReplicaLag(b *testing.B, state string) {
	ctx := context.Background()
	logger := slog.New(slog.DiscardHandler)
	if os.Getenv("FLASHRPC_TEST_LOG") != "" {
		logger = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	}
	o := testOptions(b.TempDir())
	primary, err := startDev(o, logger)
	if err != nil {
		b.Fatal(err)
	}
	primary.Endpoints().Serve()
	defer primary.Close()
	_, ro := followFlags(io.Discard)
	ro.DataDir = b.TempDir()
	ro.HTTPPort, ro.PreconfPort, ro.feed.Port = 0, 0, -1
	ro.upstream, ro.feedURL = primary.Endpoints()[0].URL(), primary.Feed().URL
	ro.genesis = filepath.Join(primary.Chain().DataDir(), node.GenesisFileName)
	if ro.state = state; state == "remote" {
		ro.genesis = ""
	}
	ro.poll = 20 * time.Millisecond
	replica, err := startFollow(ro, logger)
	if err != nil {
		b.Fatal(err)
	}
	defer replica.Close()

	var mu sync.Mutex
	published := map[common.Hash]time.Time{}
	primary.Preconf().OnSnapshot(func(s *preconf.Snapshot) {
		mu.Lock()
		published[s.Block.Hash()] = s.Published
		mu.Unlock()
	})
	served := make(chan *preconf.Snapshot, 16)
	replica.Preconf().OnSnapshot(func(s *preconf.Snapshot) { served <- s })

	raw, err := gethrpc.Dial(primary.Endpoints()[1].URL())
	if err != nil {
		b.Fatal(err)
	}
	defer raw.Close()
	client := ethclient.NewClient(raw)
	key := primary.Accounts()[0].Key
	chainID := primary.Chain().Config().ChainID
	to := common.Address{0xbe}
	var lags []time.Duration
	nonce := uint64(0)
	i := 0
	for b.Loop() {
		tx, err := types.SignNewTx(key, types.LatestSignerForChainID(chainID), &types.DynamicFeeTx{
			ChainID: chainID, Nonce: nonce, To: &to, Value: big.NewInt(1), Gas: params.TxGas,
			GasFeeCap: big.NewInt(10 * params.GWei), GasTipCap: big.NewInt(params.GWei),
		})
		if err != nil {
			b.Fatal(err)
		}
		nonce++
		if err := client.SendTransaction(ctx, tx); err != nil {
			b.Fatal(err)
		}
		method := "dev_preconfirm"
		if i++; i%10 == 0 {
			method = "dev_seal"
		}
		var res any
		if err := raw.Call(&res, method); err != nil {
			b.Fatal(err)
		}
		want := primary.Preconf().Last().Block.Hash() // the newest pre-confirmation (index 0 after a seal)
		for {
			s := <-served
			if s.Block.Hash() != want {
				continue
			}
			mu.Lock()
			lags = append(lags, s.Published.Sub(published[want]))
			mu.Unlock()
			break
		}
	}
	slices.Sort(lags)
	pct := func(p float64) float64 { return float64(lags[int(p*float64(len(lags)-1))]) / float64(time.Millisecond) }
	b.ReportMetric(pct(0.5), "p50-ms")
	b.ReportMetric(pct(0.95), "p95-ms")
	b.ReportMetric(pct(1), "max-ms")
}

// BenchmarkCatchUp measures a replica's catch-up from genesis over a primary's chain, in
// Mgas/s, beside importing the same blocks into a fresh chain as `flashrpc import` does (the
// chain file decoded, then chain.Import: go-ethereum's InsertChain, what `geth import` runs),
// in the same run. Two chains: 40 blocks of 250 transfers (210 Mgas), and 10,000 blocks of 5
// transfers, the size and mean block of `flashrpc generate`'s default chain (whose blocks are
// not executable: they keep the genesis state). The replica's cost over import is fetching
// the blocks from the primary and keeping its log index and API caches up to date. The
// replica runs twice: primary=same-process has the primary serve the blocks from this process
// (its CPU counts in the replica's), primary=other-process from a `flashrpc dev` process on the
// primary's data directory, as a replica and its primary run (both on this machine's cores);
// FLASHRPC_BENCH_BINARY names a flashrpc binary built beforehand, else one is built. The
// import runs last, with no primary running (the other process ends with its
// sub-benchmark). Both times leave out opening the chain (the genesis commit); the replica's
// starts when its sync has just started.
func BenchmarkCatchUp(b *testing.B) {
	for _, shape := range []struct{ blocks, perBlock int }{{40, 250}, {10_000, 5}} {
		b.Run(fmt.Sprintf("blocks=%d/txs=%d", shape.blocks, shape.perBlock), func(b *testing.B) {
			benchCatchUp(b, shape.blocks, shape.perBlock)
		})
	}
}

func benchCatchUp(b *testing.B, blocks, perBlock int) {
	ctx := context.Background()
	logger := slog.New(slog.DiscardHandler)
	o := testOptions(b.TempDir())
	primary, err := startDev(o, logger)
	if err != nil {
		b.Fatal(err)
	}
	primary.Endpoints().Serve()
	closePrimary := sync.OnceValue(primary.Close)
	defer closePrimary()
	buildTransferChain(b, primary, blocks, perBlock)
	head := primary.Chain().Head()
	var gas uint64
	var file bytes.Buffer // the chain as `flashrpc export` writes it
	for n := uint64(1); n <= head.Number.Uint64(); n++ {
		blk := primary.Chain().BlockByNumber(n)
		gas += blk.GasUsed()
		if err := rlp.Encode(&file, blk); err != nil {
			b.Fatal(err)
		}
	}
	if want := uint64(blocks*perBlock) * params.TxGas; gas < want {
		b.Fatalf("the chain has %d gas, want %d", gas, want)
	}
	genesis := filepath.Join(primary.Chain().DataDir(), node.GenesisFileName)
	b.Run("replica", func(b *testing.B) {
		b.Run("primary=same-process", func(b *testing.B) {
			benchReplicaCatchUp(b, primary.Endpoints()[0].URL(), genesis, head, gas)
		})
		if err := closePrimary(); err != nil {
			b.Fatal(err)
		}
		url := startBinary(b, benchBinary(b), "dev", "--datadir", o.DataDir, "--block-time", "0", "--preconf-interval", "0")
		b.Run("primary=other-process", func(b *testing.B) {
			benchReplicaCatchUp(b, url, genesis, head, gas)
		})
	})
	b.Run("import", func(b *testing.B) {
		var took, cpu time.Duration
		for b.Loop() {
			c, err := openGenesisChain(b.TempDir(), genesis)
			if err != nil {
				b.Fatal(err)
			}
			stopProfile := startCatchUpProfile(b)
			start, cpuStart := time.Now(), cputime.Process(b)
			chainBlocks, err := chain.DecodeBlocks(bytes.NewReader(file.Bytes()))
			if err != nil {
				b.Fatal(err)
			}
			if err := c.Import(ctx, chainBlocks, nil); err != nil {
				b.Fatal(err)
			}
			took, cpu = took+time.Since(start), cpu+cputime.Process(b)-cpuStart
			stopProfile()
			if err := c.Close(); err != nil {
				b.Fatal(err)
			}
		}
		reportCatchUp(b, gas, took, cpu)
	})
}

// benchReplicaCatchUp times replicas catching up from genesis with the upstream at url, whose
// chain has head and gas in all, and checks that each ends on head.
func benchReplicaCatchUp(b *testing.B, url, genesis string, head *types.Header, gas uint64) {
	logger := slog.New(slog.DiscardHandler)
	var took, cpu time.Duration
	for b.Loop() {
		_, ro := followFlags(io.Discard)
		ro.DataDir = b.TempDir()
		ro.HTTPPort, ro.PreconfPort, ro.feed.Port = 0, 0, -1
		ro.upstream, ro.genesis = url, genesis
		ro.poll = 10 * time.Millisecond
		replica, err := startFollow(ro, logger) // opens the chain, then starts syncing
		if err != nil {
			b.Fatal(err)
		}
		stopProfile := startCatchUpProfile(b)
		start, cpuStart := time.Now(), cputime.Process(b)
		for replica.Chain().Head().Number.Cmp(head.Number) < 0 {
			time.Sleep(time.Millisecond)
		}
		took, cpu = took+time.Since(start), cpu+cputime.Process(b)-cpuStart
		stopProfile()
		if got := replica.Chain().Head().Hash(); got != head.Hash() {
			b.Fatalf("replica's head %s, the primary's %s", got, head.Hash())
		}
		if err := replica.Close(); err != nil {
			b.Fatal(err)
		}
	}
	reportCatchUp(b, gas, took, cpu)
}

// startCatchUpProfile starts a CPU profile of the timed part of a catch-up or import when
// FLASHRPC_BENCH_PROFILE names a directory (the file is named after the sub-benchmark), so
// that building the primary's chain stays out of it; it returns the function that stops it.
// Without the variable it does nothing.
func startCatchUpProfile(b *testing.B) (stop func()) {
	dir := os.Getenv("FLASHRPC_BENCH_PROFILE")
	if dir == "" {
		return func() {}
	}
	name := strings.NewReplacer("/", "_", "=", "-").Replace(b.Name()) + ".cpu.pprof"
	f, err := os.Create(filepath.Join(dir, name))
	if err != nil {
		b.Fatal(err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		b.Fatal(errors.Join(err, f.Close()))
	}
	return func() {
		pprof.StopCPUProfile()
		if err := f.Close(); err != nil {
			b.Fatal(err)
		}
	}
}

// benchBinary returns the flashrpc binary FLASHRPC_BENCH_BINARY names, else one built for this
// run (stampedBinary), so that a measurement need not wait for a build.
func benchBinary(b *testing.B) string {
	if bin := os.Getenv("FLASHRPC_BENCH_BINARY"); bin != "" {
		return bin
	}
	return stampedBinary(b)
}

// reportCatchUp reports gas per second of wall time and per second of the process's CPU time
// (every goroutine; the primary's serving too when it runs in this process): on cores shared
// with other work the second shows the cost whatever share of the cores the run got.
func reportCatchUp(b *testing.B, gas uint64, took, cpu time.Duration) {
	b.ReportMetric(float64(gas)/1e6/(took.Seconds()/float64(b.N)), "Mgas/s")
	b.ReportMetric(float64(gas)/1e6/(cpu.Seconds()/float64(b.N)), "Mgas/cpu-s")
}

// buildTransferChain seals blocks blocks of perBlock transfers to new accounts each on the
// primary, from its dev accounts in turn.
func buildTransferChain(b *testing.B, primary *node.Dev, blocks, perBlock int) {
	ctx := context.Background()
	chainID := primary.Chain().Config().ChainID
	signer := types.LatestSignerForChainID(chainID)
	accounts := primary.Accounts()
	nonces := make([]uint64, len(accounts))
	raw, err := gethrpc.Dial(primary.Endpoints()[1].URL())
	if err != nil {
		b.Fatal(err)
	}
	defer raw.Close()
	next := 0
	for n := range blocks {
		batch := make([]gethrpc.BatchElem, 0, perBlock)
		for i := range perBlock {
			acc := next % len(accounts)
			next++
			to := common.BigToAddress(big.NewInt(int64(0x1000 + n*perBlock + i)))
			tx, err := types.SignNewTx(accounts[acc].Key, signer, &types.DynamicFeeTx{
				ChainID: chainID, Nonce: nonces[acc], To: &to, Value: big.NewInt(1), Gas: params.TxGas,
				GasFeeCap: big.NewInt(10 * params.GWei), GasTipCap: big.NewInt(params.GWei),
			})
			if err != nil {
				b.Fatal(err)
			}
			nonces[acc]++
			enc, err := tx.MarshalBinary()
			if err != nil {
				b.Fatal(err)
			}
			batch = append(batch, gethrpc.BatchElem{Method: "eth_sendRawTransaction", Args: []any{hexutil.Bytes(enc)}, Result: new(common.Hash)})
		}
		if err := raw.BatchCall(batch); err != nil {
			b.Fatal(err)
		}
		for _, e := range batch {
			if e.Error != nil {
				b.Fatal(e.Error)
			}
		}
		if _, err := primary.Sequencer().Preconfirm(ctx); err != nil {
			b.Fatal(err)
		}
		if _, err := primary.Sequencer().Seal(ctx); err != nil {
			b.Fatal(err)
		}
	}
}

// openGenesisChain opens a new chain in dir from a genesis file.
func openGenesisChain(dir, genesis string) (*chain.Chain, error) {
	data, err := os.ReadFile(genesis)
	if err != nil {
		return nil, err
	}
	g := new(core.Genesis)
	if err := json.Unmarshal(data, g); err != nil {
		return nil, err
	}
	return chain.Open(chain.Config{DataDir: dir, Genesis: g, Logger: slog.New(slog.DiscardHandler)})
}
