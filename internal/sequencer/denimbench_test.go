package sequencer_test

import (
	"context"
	"crypto/ecdsa"
	"log/slog"
	"math/big"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"

	"github.com/flashrpc/flashrpc/internal/benchmix"
	"github.com/flashrpc/flashrpc/internal/chain"
	"github.com/flashrpc/flashrpc/internal/oprollup"
	"github.com/flashrpc/flashrpc/internal/preconf"
	"github.com/flashrpc/flashrpc/internal/sequencer"
	"github.com/flashrpc/flashrpc/internal/txpool"
)

// BenchmarkDenimSeal measures one block of Base since Denim, sealed as the node does every
// 200 ms: a chain that runs Denim from genesis (18.75M gas a block) without pre-confirmations,
// the realistic mix (benchmix, 200 senders) filling the block, then Sequencer.Seal: building
// the block from the pool (ms/build) and writing it (ms/write: the state commit, the block and
// receipts, the trie flush, the head, the fsync and the listeners, then opening the next block
// with its two deposits). Seal writes before it returns; the timer's seals write the same on
// the writer goroutine while the next block builds (preconf.SealAsync). The chain's debug lines
// give the write's phases. docs/benchmarks.md ("Base since Denim") has the figures.
//
//	go test -run '^$' -bench BenchmarkDenimSeal -benchtime 20x ./internal/sequencer/
func BenchmarkDenimSeal(b *testing.B) {
	const senders = 200
	n, phases := denimMixNode(b, senders)
	mix := benchmix.New(n.chain.Config().ChainID, crypto.PubkeyToAddress(n.keys[0].PublicKey), 0, big.NewInt(params.GWei), big.NewInt(1000))
	nonces := make([]uint64, senders)
	nonces[0] = benchmix.SetupDeployer
	setup, err := mix.Setup(n.keys[0], 0, n.keys, nonces)
	if err != nil {
		b.Fatal(err)
	}
	for i := range nonces {
		nonces[i] += benchmix.SetupPerSender
	}
	ctx := context.Background()
	add := func(txs ...*types.Transaction) {
		view := hiddenPoolView(b, n.chain, n.pre)
		for _, tx := range txs {
			if err := n.pool.Add(tx, view); err != nil {
				b.Fatalf("pool: %v", err)
			}
		}
	}
	add(setup...)
	for n.pool.Len() > 0 {
		if _, err := n.seq.Seal(ctx); err != nil {
			b.Fatal(err)
		}
	}
	var k uint64
	fill := func(count int) {
		var txs []*types.Transaction
		for range count {
			s := int(k % senders)
			tx, err := mix.Tx(n.keys[s], nonces[s], k)
			if err != nil {
				b.Fatal(err)
			}
			nonces[s]++
			k++
			txs = append(txs, tx)
		}
		add(txs...)
	}
	phases.reset()
	n.build = 0
	var sealed time.Duration
	var gas, txs uint64
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		fill(520 - n.pool.Len()) // more than 18.75M gas of the mix
		b.StartTimer()
		start := time.Now()
		block, err := n.seq.Seal(ctx)
		sealed += time.Since(start)
		if err != nil {
			b.Fatal(err)
		}
		gas += block.GasUsed()
		txs += uint64(len(block.Transactions()) - 2) // the L1-attributes and BaseTime deposits
	}
	per := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 / float64(b.N) }
	b.ReportMetric(per(sealed), "ms/seal")
	b.ReportMetric(per(n.build), "ms/build")
	b.ReportMetric(per(sealed-n.build), "ms/write")
	for _, p := range []string{"commit", "store", "setHead", "sync", "listeners"} {
		b.ReportMetric(per(phases.sum(p)), "ms/"+p)
	}
	b.ReportMetric(float64(gas)/float64(b.N)/1e6, "Mgas/block")
	b.ReportMetric(float64(txs)/float64(b.N), "txs/block")
}

// denimMixNode is newOPNode for Base since Denim: a chain that runs Denim from genesis, whose
// genesis funds senders keys, with a sequencer without pre-confirmations sealing on request.
// The chain's debug lines go to the returned phases.
func denimMixNode(b *testing.B, senders int) (*denimNode, *writePhases) {
	n := &denimNode{}
	var funded []common.Address
	for i := range senders {
		key, _ := crypto.ToECDSA(crypto.Keccak256(big.NewInt(int64(i + 1)).Bytes()))
		n.keys = append(n.keys, key)
		funded = append(funded, crypto.PubkeyToAddress(key.PublicKey))
	}
	denim := uint64(0)
	g, err := oprollup.DevDenimGenesis(1337, funded, new(big.Int).Mul(big.NewInt(1e6), big.NewInt(params.Ether)), denim)
	if err != nil {
		b.Fatal(err)
	}
	phases := &writePhases{}
	c, err := chain.Open(chain.Config{Genesis: g, Denim: &denim, Logger: slog.New(phases)})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { c.Close() })
	n.chain, n.pre, n.pool = c, preconf.New(c), txpool.New(c.Config(), txpool.Config{})
	n.seq = sequencer.New(sequencer.Config{
		L1: &oprollup.DevL1{GenesisTime: g.Timestamp}, Denim: &denim, NoPreconfirmations: true,
		ObserveBuild: func(d time.Duration) { n.build += d },
	}, c, n.pre, n.pool)
	if err := n.seq.Start(context.Background()); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(n.seq.Close)
	return n, phases
}

// denimNode is a chain that runs Denim, without pre-confirmations, sealed by hand.
type denimNode struct {
	chain *chain.Chain
	pre   *preconf.Preconf
	pool  *txpool.Pool
	seq   *sequencer.Sequencer
	keys  []*ecdsa.PrivateKey
	build time.Duration // the builds' time so far (Config.ObserveBuild)
}

// writePhases is a slog.Handler that sums the durations the chain's write lines carry
// (internal/chain write.go: commit, store, setHead, sync, listeners).
type writePhases struct {
	mu   sync.Mutex
	sums map[string]time.Duration
}

func (w *writePhases) Enabled(context.Context, slog.Level) bool { return true }

func (w *writePhases) Handle(_ context.Context, r slog.Record) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.sums == nil {
		w.sums = map[string]time.Duration{}
	}
	r.Attrs(func(a slog.Attr) bool {
		if a.Value.Kind() == slog.KindDuration {
			w.sums[a.Key] += a.Value.Duration()
		}
		return true
	})
	return nil
}

func (w *writePhases) WithAttrs([]slog.Attr) slog.Handler { return w }
func (w *writePhases) WithGroup(string) slog.Handler      { return w }

func (w *writePhases) reset() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.sums = nil
}

func (w *writePhases) sum(key string) time.Duration {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.sums[key]
}
