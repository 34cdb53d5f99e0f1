package follow

import (
	"context"
	"fmt"
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"

	"github.com/flashrpc/flashrpc/internal/chain"
	"github.com/flashrpc/flashrpc/internal/cputime"
	"github.com/flashrpc/flashrpc/internal/flashblocks"
	"github.com/flashrpc/flashrpc/internal/oprollup"
	"github.com/flashrpc/flashrpc/internal/preconf"
)

var benchKey, _ = crypto.HexToECDSA("ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80")

// flashblockPair builds, on a producer's OP Stack dev chain, index 0 of block 1 (its
// L1-attributes deposit) and index 1 with n transfers, as the dev sequencer publishes them.
func flashblockPair(t testing.TB, genesis func() *chain.Config, n int) (p0, p1 *flashblocks.Payload) {
	t.Helper()
	ctx := context.Background()
	c, err := chain.Open(*genesis())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	pre := preconf.New(c)
	head := c.Head()
	time := head.Time + 2
	attrs := preconf.NextAttributes(c.Config(), head, time, oprollup.SequencerFeeVault, oprollup.ExtraData(c.Config(), time))
	info := (&oprollup.DevL1{GenesisTime: head.Time}).Info(nil, time)
	attrs.Transactions, attrs.PrevRandao = []*types.Transaction{info.DepositTx()}, info.Hash
	s0, err := pre.Open(ctx, attrs, preconf.PublishOptions{})
	if err != nil {
		t.Fatal(err)
	}
	batch, err := pre.Begin()
	if err != nil {
		t.Fatal(err)
	}
	signer := types.LatestSigner(c.Config())
	for i := range n {
		to := common.BigToAddress(big.NewInt(int64(0x10000 + i)))
		tx, err := types.SignNewTx(benchKey, signer, &types.DynamicFeeTx{
			ChainID: c.Config().ChainID, Nonce: uint64(i), To: &to, Value: big.NewInt(1), Gas: params.TxGas,
			GasFeeCap: big.NewInt(10 * params.GWei), GasTipCap: big.NewInt(params.GWei),
		})
		if err != nil {
			t.Fatal(err)
		}
		if err := batch.Add(ctx, tx); err != nil {
			t.Fatalf("transfer %d: %v", i, err)
		}
	}
	s1, err := batch.Commit(ctx, preconf.PublishOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if p0, err = flashblocks.FromBlock(s0.Block, 0, 0); err != nil {
		t.Fatal(err)
	}
	if p1, err = flashblocks.FromBlock(s1.Block, 1, s1.FirstNew); err != nil {
		t.Fatal(err)
	}
	return p0, p1
}

// replicaOf returns a Follower (not started) of a fresh chain with the genesis.
func replicaOf(t testing.TB, genesis func() *chain.Config) *Follower {
	t.Helper()
	c, err := chain.Open(*genesis())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	f, err := New(Config{Upstream: "http://127.0.0.1:1"}, c, preconf.New(c))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func opGenesis(t testing.TB) func() *chain.Config {
	return func() *chain.Config {
		addr := crypto.PubkeyToAddress(benchKey.PublicKey)
		return &chain.Config{DataDir: t.TempDir(), Genesis: oprollup.DevGenesis(chain.DefaultChainID, []common.Address{addr}, chain.DevAccountBalance)}
	}
}

// TestReexecuteFlashblock checks the verification path the benchmark times, with senders
// recovered at the flashblock's turn and on its arrival (the feed reader's pool): the
// replica's re-execution of a producer's flashblock gives what the producer published, and a
// copy with one transaction less does not.
func TestReexecuteFlashblock(t *testing.T) {
	ctx := context.Background()
	g := opGenesis(t)
	p0, p1 := flashblockPair(t, g, 4*recoverPerWorker) // enough for senders recovered beside execution
	short := *p1
	short.Diff.Transactions = p1.Diff.Transactions[:len(p1.Diff.Transactions)-1]
	pool := newSenderPool(ctx)
	defer pool.close()
	for _, onArrival := range []bool{false, true} {
		t.Run(fmt.Sprintf("on-arrival=%v", onArrival), func(t *testing.T) {
			f := replicaOf(t, g)
			// arrive decodes p as the feed reader does (nil: at its turn, on the writer).
			arr := &arrivals{config: f.chain.Config(), pool: pool}
			arrive := func(p *flashblocks.Payload) *decoded {
				if !onArrival {
					return nil
				}
				d := arr.decode(p)
				if d == nil || d.err != nil || d.senders == nil {
					t.Fatalf("flashblock %d not decoded on arrival: %+v", p.Index, d)
				}
				return d
			}
			if err := f.open(ctx, p0, arrive(p0)); err != nil {
				t.Fatalf("index 0: %v", err)
			}
			if err := f.apply(ctx, &short, arrive(&short)); err == nil {
				t.Fatal("a flashblock with a transaction left out verified")
			}
			if f.pre.Last() != nil {
				t.Fatal("the block in progress survived a refused flashblock")
			}
			f.cur = nil
			if err := f.open(ctx, p0, arrive(p0)); err != nil {
				t.Fatalf("index 0 again: %v", err)
			}
			if err := f.apply(ctx, p1, arrive(p1)); err != nil {
				t.Fatalf("index 1: %v", err)
			}
			if got := f.pre.Last().Block.Hash(); got != p1.Diff.BlockHash {
				t.Fatalf("replica's block %s, producer's %s", got, p1.Diff.BlockHash)
			}
		})
	}
}

// BenchmarkReexecuteFlashblock times a replica's work on one flashblock of n transfers on an
// OP Stack chain at its turn on the writer: executing the transactions on the block in
// progress, assembling the partial block (roots, hash), comparing it with what the sequencer
// published and publishing it. senders=at-turn decodes the transactions and recovers their
// senders then too (beside execution, on every core); senders=on-arrival has them decoded and
// recovered by the feed reader's pool when the frame arrived, before the flashblock's turn
// (outside the timer), as a replica does while it executes the flashblocks before it. Besides
// the time, cpu-ms/op is the process's CPU time in the timed part: what the work costs
// whatever share of the cores other work leaves it.
func BenchmarkReexecuteFlashblock(b *testing.B) {
	for _, n := range []int{100, 1000} {
		for _, senders := range []string{"at-turn", "on-arrival"} {
			b.Run(fmt.Sprintf("txs=%d/senders=%s", n, senders), func(b *testing.B) {
				ctx := context.Background()
				g := opGenesis(b)
				p0, p1 := flashblockPair(b, g, n)
				f := replicaOf(b, g)
				pool := newSenderPool(ctx)
				defer pool.close()
				arr := &arrivals{config: f.chain.Config(), pool: pool}
				var cpu time.Duration
				b.ReportAllocs()
				for b.Loop() {
					b.StopTimer()
					f.discard()
					if err := f.open(ctx, p0, nil); err != nil {
						b.Fatal(err)
					}
					var d *decoded
					if senders == "on-arrival" {
						arr.decode(p0) // the block's signer
						// A fresh decoding: the payload's transactions carry no sender yet.
						d = arr.decode(p1)
						d.senders.waitAll()
					}
					b.StartTimer()
					start := cputime.Process(b)
					if err := f.apply(ctx, p1, d); err != nil {
						b.Fatal(err)
					}
					cpu += cputime.Process(b) - start
				}
				b.ReportMetric(float64(cpu)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
			})
		}
	}
}
