package follow

import (
	"context"
	"math/big"
	"sync"

	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"
)

// Catch-up pipeline: while the writer inserts (executes) one batch of blocks, the next
// syncAhead batches are fetched and decoded, and their senders recovered, in the background.
// Inserting then finds every sender cached in its transaction, and batches that are ready are
// inserted together (up to syncInsertMax blocks), so the chain's per-insert costs (one synced
// database write, the head's publication) are paid once for all of them. The look-ahead is
// bounded: at most syncAhead batches are in flight or waiting, each of syncBatch blocks. A
// batch abandoned (the sync went another way, after a rewind) has its fetch cancelled, and
// the sync waits for every fetch it started to end before it returns.
// Header checks, transactions roots and execution stay with the insert (go-ethereum's
// InsertChain: nothing is served before it verified the block).

// Bounds of the catch-up pipeline.
const (
	// syncAhead is how many batches are fetched ahead of the one being inserted. While an
	// insert of up to syncInsertMax blocks runs, as many more are fetched and decoded: at
	// most 2*syncInsertMax blocks are held decoded at a time.
	syncAhead = 4
	// syncInsertMax is the most blocks one insert takes when several batches are ready. An
	// insert costs one synced database write and one publication of the head whatever its
	// size, which matters when blocks are small (docs/benchmarks.md, "Replicas"); it cannot be
	// interrupted, so larger inserts would delay a stop.
	syncInsertMax = syncBatch * syncAhead
)

// prefetch is a batch of blocks being fetched in the background.
type prefetch struct {
	from, to uint64
	done     chan fetched       // receives once
	cancel   context.CancelFunc // ends the fetch; called once the batch is taken or abandoned
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
	fetches  sync.WaitGroup // the fetches started, until they end
}

// take returns the blocks from..to: the batch in flight for them, or fetched now. It then
// starts fetching the batches after to, up to target, until syncAhead are in flight.
func (la *lookahead) take(ctx context.Context, from, to, target uint64) ([]*types.Block, error) {
	var blocks []*types.Block
	var err error
	if len(la.inFlight) > 0 && la.inFlight[0].from == from && la.inFlight[0].to == to {
		p := la.inFlight[0]
		r := <-p.done
		p.cancel()
		blocks, err = r.blocks, r.err
		la.inFlight = la.inFlight[1:]
	} else {
		// Another range: what was in flight is abandoned. The writer waits for this batch
		// anyway; the insert recovers its senders beside execution (go-ethereum's sender
		// cacher), sooner than recovering them all first here would.
		la.abandon()
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
		la.inFlight = append(la.inFlight, la.prefetch(ctx, from, last))
	}
}

// abandon cancels the fetches of the batches in flight and forgets them.
func (la *lookahead) abandon() {
	for _, p := range la.inFlight {
		p.cancel()
	}
	la.inFlight = nil
}

// close abandons the batches in flight and waits until every fetch started has ended: none
// is left recovering senders once the sync is over.
func (la *lookahead) close() {
	la.abandon()
	la.fetches.Wait()
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
		p.cancel()
		la.inFlight = la.inFlight[1:]
		return r.blocks
	default:
		return nil
	}
}

// prefetch starts fetching blocks from..to, until ctx ends or the batch is abandoned. Its
// goroutine never blocks: an abandoned result stays in the buffered channel.
func (la *lookahead) prefetch(ctx context.Context, from, to uint64) *prefetch {
	ctx, cancel := context.WithCancel(ctx)
	p := &prefetch{from: from, to: to, done: make(chan fetched, 1), cancel: cancel}
	la.fetches.Go(func() {
		blocks, err := la.f.fetchBatch(ctx, from, to)
		p.done <- fetched{blocks, err}
	})
	return p
}

// fetchBatch fetches blocks from..to and prepares their transactions (prepareBlocks).
func (f *Follower) fetchBatch(ctx context.Context, from, to uint64) ([]*types.Block, error) {
	blocks, err := f.up.blocksByNumber(ctx, from, to)
	prepareBlocks(ctx, f.chain.Config(), blocks)
	return blocks, err
}

// prepareBlocks prepares blocks' transactions (prepareTx: sender, hash, rollup cost
// data) on every core, each cached in its transaction, where inserting the block finds it;
// and computes each block's hash. It is one recovery over the blocks' transactions, each with
// its block's signer; once ctx ends, the transactions left are not prepared. An invalid
// signature is left for the insert to refuse, with its error.
func prepareBlocks(ctx context.Context, config *params.ChainConfig, blocks []*types.Block) {
	var txs []*types.Transaction
	var signers []types.Signer
	for _, b := range blocks {
		b.Hash()
		signer := types.MakeSigner(config, new(big.Int).SetUint64(b.NumberU64()), b.Time())
		for _, tx := range b.Transactions() {
			if !tx.IsDepositTx() { // a deposit names its sender
				txs, signers = append(txs, tx), append(signers, signer)
			}
		}
	}
	if len(txs) == 0 {
		return
	}
	r := newRecovery(ctx, txs, signers, config.IsOptimism())
	for range workers(len(txs)) - 1 { // the calling goroutine is a worker too
		go r.work()
	}
	r.work()
	r.waitAll()
}
