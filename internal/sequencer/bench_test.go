package sequencer_test

import (
	"context"
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"
)

// BenchmarkFlashblockBuild measures the sequencer building one pre-confirmation (a
// flashblock) of txs pooled transfers on an OP Stack chain: selecting them from the pool,
// executing them on the block in progress, assembling the partial block (state root, receipts
// root, DA footprint) and publishing the snapshot, i.e. Sequencer.Preconfirm. Each iteration
// builds pre-confirmation index of a fresh block, after index-1 earlier pre-confirmations of
// txs transfers each (the pool is filled, the earlier ones built and the block sealed with
// the timer stopped), from 100 senders. The block gas limit is 1e9 so that five 1,000-transfer
// flashblocks fit (at Base's 187.5M, the DA footprint of 4,687 transfers fills a block).
// Base's node needs about 55 ms to re-execute a 1,000-transaction flashblock
// (docs/benchmarks.md).
//
//	go test -run '^$' -bench BenchmarkFlashblockBuild -benchtime 20x ./internal/sequencer/
func BenchmarkFlashblockBuild(b *testing.B) {
	for _, c := range []struct{ txs, index int }{{100, 1}, {1000, 1}, {1000, 5}} {
		b.Run("txs="+itoa(c.txs)+"/index="+itoa(c.index), func(b *testing.B) {
			const senders = 100
			txs := c.txs
			n := newOPNode(b, 1_000_000_000, senders)
			ctx := context.Background()
			nonces := make([]uint64, senders)
			to := common.HexToAddress("0x00000000000000000000000000000000000f00d5")
			cfg := n.chain.Config()
			signer := types.LatestSigner(cfg)
			fill := func() {
				view := n.view()
				for i := range txs {
					s := i % senders
					tx, err := types.SignNewTx(n.keys[s], signer, &types.DynamicFeeTx{
						ChainID: cfg.ChainID, Nonce: nonces[s], To: &to, Value: big.NewInt(1), Gas: params.TxGas,
						GasFeeCap: big.NewInt(params.GWei), GasTipCap: big.NewInt(1000),
					})
					if err != nil {
						b.Fatal(err)
					}
					nonces[s]++
					if err := n.pool.Add(tx, view); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportAllocs()
			var built time.Duration
			for b.Loop() {
				b.StopTimer()
				for range c.index - 1 {
					fill()
					if _, err := n.seq.Preconfirm(ctx); err != nil {
						b.Fatal(err)
					}
				}
				fill()
				b.StartTimer()
				start := time.Now()
				snap, err := n.seq.Preconfirm(ctx)
				built += time.Since(start)
				if err != nil || len(snap.Block.Transactions())-snap.FirstNew != txs {
					b.Fatalf("pre-confirmation: %v, %d transactions", err, len(snap.Block.Transactions())-snap.FirstNew)
				}
				b.StopTimer()
				n.now = n.now.Add(2 * time.Second)
				if _, err := n.seq.Seal(ctx); err != nil {
					b.Fatal(err)
				}
				n.snaps = n.snaps[:0]
				b.StartTimer()
			}
			perBlock := built / time.Duration(b.N)
			b.ReportMetric(float64(perBlock.Microseconds())/1000, "ms/flashblock")
			b.ReportMetric(float64(txs)/perBlock.Seconds(), "tx/s")
		})
	}
}

func itoa(v int) string { return big.NewInt(int64(v)).String() }

// BenchmarkSeal measures sealing a block of txs transfers, pre-confirmed in flashblocks of
// 1,000: the final assembly, chain.Insert (go-ethereum executes and validates the block again,
// commits its state and writes it; the database is synced) and opening the next block. The
// sequencer holds its lock meanwhile, so a seal longer than the pre-confirmation interval
// delays the next pre-confirmation (docs/benchmarks.md).
//
//	go test -run '^$' -bench BenchmarkSeal -benchtime 10x ./internal/sequencer/
func BenchmarkSeal(b *testing.B) {
	for _, txs := range []int{1000, 4000} {
		b.Run("txs="+itoa(txs), func(b *testing.B) {
			const senders = 100
			n := newOPNode(b, 1_000_000_000, senders)
			ctx := context.Background()
			nonces := make([]uint64, senders)
			to := common.HexToAddress("0x00000000000000000000000000000000000f00d5")
			cfg := n.chain.Config()
			signer := types.LatestSigner(cfg)
			b.ReportAllocs()
			for b.Loop() {
				b.StopTimer()
				for i := range txs {
					s := i % senders
					tx, err := types.SignNewTx(n.keys[s], signer, &types.DynamicFeeTx{
						ChainID: cfg.ChainID, Nonce: nonces[s], To: &to, Value: big.NewInt(1), Gas: params.TxGas,
						GasFeeCap: big.NewInt(params.GWei), GasTipCap: big.NewInt(1000),
					})
					if err != nil {
						b.Fatal(err)
					}
					nonces[s]++
					if err := n.pool.Add(tx, n.view()); err != nil {
						b.Fatal(err)
					}
					if (i+1)%1000 == 0 {
						if _, err := n.seq.Preconfirm(ctx); err != nil {
							b.Fatal(err)
						}
					}
				}
				n.now = n.now.Add(2 * time.Second)
				n.snaps = n.snaps[:0]
				b.StartTimer()
				block, err := n.seq.Seal(ctx)
				if err != nil || len(block.Transactions()) != txs+1 {
					b.Fatalf("seal: %v", err)
				}
			}
		})
	}
}
