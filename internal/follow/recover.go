package follow

import (
	"context"
	"fmt"
	"math/big"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"

	"github.com/flashrpc/flashrpc/internal/flashblocks"
)

// Sender recovery: the feed carries no senders, and recovering one (secp256k1, about 36 µs
// here) costs more than executing a transfer. A flashblock's transactions are decoded, and
// their senders recovered on a pool of GOMAXPROCS workers, as its frame arrives (the feed
// reader's arrivals), in the order frames arrive: by the flashblock's turn on the writer, while
// the writer executes the flashblocks before it, its senders are known or being recovered.
// Each sender is cached in its transaction for the block's signer, where execution finds it,
// with the other values a transaction caches that execution would otherwise compute on the
// writer (its hash, and on the OP Stack its compressed size for the L1 fee: prepareTx); the
// writer executes transaction i as soon as it is prepared.

// decoded is a flashblock's transactions, decoded, with their senders being recovered.
type decoded struct {
	txs     []*types.Transaction
	senders *recovery // nil: recovered by execution
	err     error     // the transactions do not decode
}

// decodeTxs decodes the transactions a flashblock adds. A post-execution transaction (type
// 0x7d) is refused before it is decoded.
func decodeTxs(p *flashblocks.Payload) ([]*types.Transaction, error) {
	txs := make([]*types.Transaction, len(p.Diff.Transactions))
	for i, enc := range p.Diff.Transactions {
		if len(enc) > 0 && enc[0] == types.PostExecTxType {
			return nil, fmt.Errorf("transaction %d: %w", i, errPostExec)
		}
		tx := new(types.Transaction)
		if err := tx.UnmarshalBinary(enc); err != nil {
			return nil, fmt.Errorf("decode transaction %d: %w", i, err)
		}
		txs[i] = tx
	}
	return txs, nil
}

// decodeNow decodes p's transactions on the writer, at its turn, and starts recovering their
// senders on goroutines of their own (recoverSenders) until ctx ends: a flashblock that did
// not come through the feed reader (tests, benchmarks).
func decodeNow(ctx context.Context, p *flashblocks.Payload, signer types.Signer, opStack bool) *decoded {
	txs, err := decodeTxs(p)
	if err != nil {
		return &decoded{err: err}
	}
	return &decoded{txs: txs, senders: recoverSenders(ctx, txs, signer, opStack)}
}

// prepareTx recovers tx's sender for signer and computes its hash and, on the OP Stack
// (opStack), its rollup cost data, each cached in the transaction. An invalid signature is
// left for execution to refuse, with its error.
func prepareTx(signer types.Signer, tx *types.Transaction, opStack bool) {
	types.Sender(signer, tx)
	tx.Hash()
	if opStack {
		tx.RollupCostData()
	}
}

// recovery is the recovery of a list of transactions' senders (prepareTx), in the
// transactions' order, by any number of workers, while the writer executes them one by one
// (a flashblock's) or waits for them all (a catch-up batch's). It is the one mechanism of
// sender recovery here: the feed reader's pool, decodeNow and prepareBlocks all run it.
type recovery struct {
	ctx     context.Context // once it ends, the transactions left are not prepared
	txs     []*types.Transaction
	signers []types.Signer // signers[i] is transaction i's block's; a single one: every transaction's
	opStack bool
	next    atomic.Int64    // the next transaction a worker takes
	done    []chan struct{} // closed once transaction i is prepared, or skipped
}

func newRecovery(ctx context.Context, txs []*types.Transaction, signers []types.Signer, opStack bool) *recovery {
	r := &recovery{ctx: ctx, txs: txs, signers: signers, opStack: opStack, done: make([]chan struct{}, len(txs))}
	for i := range r.done {
		r.done[i] = make(chan struct{})
	}
	return r
}

// work recovers senders until none is left. It never waits: a recovery whose flashblock was
// refused half-way is finished all the same. Once the recovery's context has ended, the
// transactions left are marked done without being prepared: nobody waits for them but a
// writer that is ending, and execution would recover a sender not cached.
func (r *recovery) work() {
	for {
		i := int(r.next.Add(1) - 1)
		if i >= len(r.txs) {
			return
		}
		if r.ctx.Err() == nil {
			signer := r.signers[0]
			if len(r.signers) > 1 {
				signer = r.signers[i]
			}
			prepareTx(signer, r.txs[i], r.opStack)
		}
		close(r.done[i])
	}
}

// workers is how many workers a recovery of n transactions is worth: one per
// recoverPerWorker transactions, at most one per core.
func workers(n int) int {
	return min(runtime.GOMAXPROCS(0), n/recoverPerWorker)
}

// recoverPerWorker is the fewest transactions worth a worker of sender recovery.
const recoverPerWorker = 16

// recoverSenders starts recovering the senders of txs on goroutines of its own, until ctx
// ends; nil when there are too few to be worth it.
func recoverSenders(ctx context.Context, txs []*types.Transaction, signer types.Signer, opStack bool) *recovery {
	n := workers(len(txs))
	if n < 2 {
		return nil
	}
	r := newRecovery(ctx, txs, []types.Signer{signer}, opStack)
	for range n {
		go r.work()
	}
	return r
}

// wait waits until transaction i's sender is recovered.
func (r *recovery) wait(i int) {
	if r != nil {
		<-r.done[i]
	}
}

// waitAll waits until every sender is recovered.
func (r *recovery) waitAll() {
	if r != nil {
		for _, d := range r.done {
			<-d
		}
	}
}

// senderPool recovers senders on a fixed set of workers, one recovery after the other in the
// order they were submitted, several workers on each. It is safe for concurrent use until
// close, after which the workers finish what was submitted and end.
type senderPool struct {
	ctx     context.Context // the reader's: once it ends, what is queued is skipped
	workers int
	jobs    chan *recovery // each recovery once per worker it may take
	wg      sync.WaitGroup
}

// senderJobs is the length of a senderPool's queue in entries per worker. A recovery (a
// flashblock's) takes an entry for each worker it may use, one per recoverPerWorker
// transactions up to all of them: at least senderJobs recoveries fit. What does not fit is
// left to execution.
const senderJobs = payloadQueue

// newSenderPool starts GOMAXPROCS workers, which recover senders until ctx ends; after,
// they mark what is queued done without recovering it, so that close returns at once.
func newSenderPool(ctx context.Context) *senderPool {
	sp := &senderPool{ctx: ctx, workers: runtime.GOMAXPROCS(0)}
	sp.jobs = make(chan *recovery, senderJobs*sp.workers)
	for range sp.workers {
		sp.wg.Go(func() {
			for r := range sp.jobs {
				r.work()
			}
		})
	}
	return sp
}

// submit queues the recovery of txs' senders; nil when the queue is full or there is nothing
// to recover (execution recovers them then).
func (sp *senderPool) submit(txs []*types.Transaction, signer types.Signer, opStack bool) *recovery {
	if len(txs) == 0 {
		return nil
	}
	r := newRecovery(sp.ctx, txs, []types.Signer{signer}, opStack)
	queued := 0
	for range min(sp.workers, (len(txs)+recoverPerWorker-1)/recoverPerWorker) {
		select {
		case sp.jobs <- r:
			queued++
		default:
		}
	}
	if queued == 0 {
		return nil
	}
	return r
}

// close ends the workers once everything submitted is recovered (or skipped, the pool's
// context having ended), and waits for them. Nothing may be submitted after.
func (sp *senderPool) close() {
	close(sp.jobs)
	sp.wg.Wait()
}

// arrivals decodes flashblocks as the feed reader receives them and submits their senders'
// recovery. It knows each block's signer from its index 0 (a later flashblock carries no
// timestamp); a flashblock of a block whose index 0 it did not see is left to the writer. It
// is owned by the feed reader.
type arrivals struct {
	config *params.ChainConfig
	pool   *senderPool
	id     flashblocks.PayloadID // the payload of the last index 0
	signer types.Signer          // its block's signer
}

// decode returns p's transactions, decoded, with their senders' recovery submitted; nil when
// the writer is to decode them at p's turn.
func (a *arrivals) decode(p *flashblocks.Payload) *decoded {
	if p.Index == 0 {
		if p.Base == nil {
			a.signer = nil
			return nil
		}
		a.id = p.PayloadID
		a.signer = types.MakeSigner(a.config, new(big.Int).SetUint64(uint64(p.Base.BlockNumber)), uint64(p.Base.Timestamp))
	} else if p.PayloadID != a.id || a.signer == nil {
		return nil
	}
	txs, err := decodeTxs(p)
	if err != nil {
		return &decoded{err: err}
	}
	return &decoded{txs: txs, senders: a.pool.submit(txs, a.signer, a.config.IsOptimism())}
}
