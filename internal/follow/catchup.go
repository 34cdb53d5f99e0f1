package follow

import (
	"context"
	"math/big"
	"runtime"
	"sync"

	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"
)

// Catch-up pipeline: while the writer inserts (executes) one batch of blocks, the next
// syncAhead batches are fetched and decoded, and their senders recovered, in the background.
// Inserting then finds every sender cached in its transaction, and batches that are ready are
// inserted together (up to syncInsertMax blocks), so the chain's per-insert costs (one synced
// database write, the head's publication) are paid once for all of them. The look-ahead is
// bounded: at most syncAhead batches are in flight or waiting, each of syncBatch blocks.
// Header checks, transactions roots and execution stay with the insert (go-ethereum's
// InsertChain: nothing is served before it verified the block).

// Bounds of the catch-up pipeline.
const (
	// syncAhead is how many batches are fetched ahead of the one being inserted.
	syncAhead = 4
	// syncInsertMax is the most blocks one insert takes when several batches are ready.
	syncInsertMax = syncBatch * syncAhead
)

// prefetch is a batch of blocks being fetched in the background.
type prefetch struct {
	from, to uint64
	done     chan fetched // receives once
}

type fetched struct {
	blocks []*types.Block
	err    error
}

// lookahead is the batches a sync has in flight, in block order. Owned by the writer, for one
// sync.
type lookahead struct {
	f        *Follower
	inFlight []*prefetch
}

// take returns the blocks from..to: the batch in flight for them, or fetched now. It then
// starts fetching the batches after to, up to target, until syncAhead are in flight.
func (la *lookahead) take(ctx context.Context, from, to, target uint64) ([]*types.Block, error) {
	var blocks []*types.Block
	var err error
	if len(la.inFlight) > 0 && la.inFlight[0].from == from && la.inFlight[0].to == to {
		r := <-la.inFlight[0].done
		blocks, err = r.blocks, r.err
		la.inFlight = la.inFlight[1:]
	} else {
		// Another range: what was in flight is abandoned. The writer waits for this batch
		// anyway; the insert recovers its senders beside execution (go-ethereum's sender
		// cacher), sooner than recovering them all first here would.
		la.inFlight = nil
		blocks, err = la.f.up.blocksByNumber(ctx, from, to)
	}
	if err == nil && len(blocks) == int(to-from+1) {
		la.fill(ctx, to, target)
	}
	return blocks, err
}

// fill starts fetching the batches after last, up to target, until syncAhead are in flight.
func (la *lookahead) fill(ctx context.Context, last, target uint64) {
	if n := len(la.inFlight); n > 0 {
		last = la.inFlight[n-1].to
	}
	for len(la.inFlight) < syncAhead && last < target {
		from := last + 1
		last = min(target, from+syncBatch-1)
		la.inFlight = append(la.inFlight, la.f.prefetch(ctx, from, last))
	}
}

// ready returns the next batch when it has arrived whole without an error and follows to
// directly, without waiting for it; nil otherwise.
func (la *lookahead) ready(to uint64) []*types.Block {
	if len(la.inFlight) == 0 || la.inFlight[0].from != to+1 {
		return nil
	}
	p := la.inFlight[0]
	select {
	case r := <-p.done:
		if r.err != nil || len(r.blocks) != int(p.to-p.from+1) {
			p.done <- r // left for take, which handles the error or the short batch
			return nil
		}
		la.inFlight = la.inFlight[1:]
		return r.blocks
	default:
		return nil
	}
}

// prefetch starts fetching blocks from..to. Its goroutine never blocks: an abandoned result
// stays in the buffered channel.
func (f *Follower) prefetch(ctx context.Context, from, to uint64) *prefetch {
	p := &prefetch{from: from, to: to, done: make(chan fetched, 1)}
	go func() {
		blocks, err := f.fetchBatch(ctx, from, to)
		p.done <- fetched{blocks, err}
	}()
	return p
}

// fetchBatch fetches blocks from..to and prepares their transactions (prepareBlocks).
func (f *Follower) fetchBatch(ctx context.Context, from, to uint64) ([]*types.Block, error) {
	blocks, err := f.up.blocksByNumber(ctx, from, to)
	prepareBlocks(f.chain.Config(), blocks)
	return blocks, err
}

// prepareBlocks prepares blocks' transactions (prepareTx: sender, hash, rollup cost
// data) on every core, each cached in its transaction, where inserting the block finds it;
// and computes each block's hash. An invalid signature is left for the insert to refuse, with
// its error.
func prepareBlocks(config *params.ChainConfig, blocks []*types.Block) {
	opStack := config.IsOptimism()
	type job struct {
		tx     *types.Transaction
		signer types.Signer
	}
	var jobs []job
	for _, b := range blocks {
		b.Hash()
		signer := types.MakeSigner(config, new(big.Int).SetUint64(b.NumberU64()), b.Time())
		for _, tx := range b.Transactions() {
			if !tx.IsDepositTx() { // a deposit names its sender
				jobs = append(jobs, job{tx, signer})
			}
		}
	}
	workers := min(runtime.GOMAXPROCS(0), len(jobs)/recoverPerWorker)
	if workers < 2 {
		for _, j := range jobs {
			prepareTx(j.signer, j.tx, opStack)
		}
		return
	}
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := w; i < len(jobs); i += workers {
				prepareTx(jobs[i].signer, jobs[i].tx, opStack)
			}
		})
	}
	wg.Wait()
}
