package logs

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/ethereum/go-ethereum/common"
)

// This file is the indexer: the goroutine that brings the index up to the chain's head, rolls
// it back after a rewind and rebuilds it when it is damaged. It is the only writer of the
// store.

func (ix *Index) run(ctx context.Context) {
	defer close(ix.done)
	retry := time.NewTimer(retryAfter)
	retry.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-ix.wake:
		case <-retry.C:
		}
		if err := ix.catchUp(ctx); err != nil && ctx.Err() == nil {
			ix.log.Error("log index: update failed; queries scan the blocks it misses", "err", err, "retry", retryAfter)
			retry.Reset(retryAfter)
		}
	}
}

// catchUp indexes up to the chain's head.
func (ix *Index) catchUp(ctx context.Context) error {
	p := newProgress(ix, ix.head.Load().next)
	for ctx.Err() == nil {
		if ix.corrupt.Load() {
			if err := ix.rebuild("damaged data found by a query"); err != nil {
				return err
			}
			p = newProgress(ix, 0)
		}
		more, err := ix.step(ctx)
		if errors.Is(err, ErrCorrupt) {
			ix.corrupt.Store(true)
			continue
		}
		if err != nil {
			return err
		}
		p.report(ix.head.Load().next)
		if !more {
			p.finish()
			return nil
		}
	}
	return nil
}

// rebuild deletes the index and starts over from block 0.
func (ix *Index) rebuild(reason string) error {
	ix.publish(meta{}) // queries stop using the index before it goes
	if err := ix.wipe(reason); err != nil {
		return err
	}
	ix.corrupt.Store(false)
	return nil
}

// step rolls back if the chain moved away from the indexed blocks, or indexes the next run of
// blocks. It reports whether there may be more to do.
func (ix *Index) step(ctx context.Context) (bool, error) {
	cur := *ix.head.Load()
	if cur.next > 0 && ix.chain.CanonicalHash(cur.next-1) != cur.head {
		return true, ix.rollback(cur)
	}
	head := ix.chain.Head().Number.Uint64()
	if cur.next < ix.first {
		// Nothing below First is the chain's own: start from it, on its parent.
		cur = meta{next: ix.first, head: ix.chain.CanonicalHash(ix.first - 1)}
	}
	if cur.next > head {
		return false, nil
	}
	w := newWriter(ix.store)
	defer w.close()
	if ix.strayRecords {
		if err := w.dropRecords(cur.next); err != nil {
			return false, err
		}
	}
	prev := cur.head
	for n := cur.next; n <= head && w.entries < flushEntries && ctx.Err() == nil; n++ {
		h := ix.chain.HeaderByNumber(n)
		if h == nil || (n > 0 && h.ParentHash != prev) {
			break // rewound or reorganised meanwhile: the next step rolls back
		}
		hash := h.Hash()
		logs := ix.chain.RawLogs(hash, n)
		var txHashes []common.Hash
		if hasLogs(logs) {
			txHashes = ix.chain.TxHashes(hash, n)
		}
		if err := w.add(n, hash, h.Time, logs, txHashes); err != nil {
			ix.strayRecords = true
			return false, err
		}
		prev = hash
	}
	if w.next == 0 {
		return false, nil
	}
	m, err := w.flush()
	if err != nil {
		ix.strayRecords = true
		return false, err
	}
	ix.strayRecords = false
	ix.publish(m)
	return true, nil
}

// rollback moves the index back to the highest checkpoint still on the canonical chain; the
// blocks above it are indexed again by the steps that follow. With none left (another chain
// in the same store), it rebuilds.
func (ix *Index) rollback(cur meta) error {
	it := ix.store.NewIterator([]byte{checkpointPrefix}, nil)
	var (
		to    checkpoint
		found bool
	)
	for it.Next() {
		key := it.Key()
		if len(key) != 9 || len(it.Value()) != common.HashLength {
			it.Release()
			return fmt.Errorf("%w: checkpoint %x", ErrCorrupt, key)
		}
		c := checkpoint{number: chunkLast(key), hash: common.BytesToHash(it.Value())}
		if c.number >= cur.next || ix.chain.CanonicalHash(c.number) != c.hash {
			break
		}
		to, found = c, true
	}
	it.Release()
	if err := it.Error(); err != nil {
		return err
	}
	if !found {
		return ix.rebuild("no indexed block is on the chain any more")
	}
	m := meta{next: to.number + 1, head: to.hash}
	batch := ix.store.NewBatch()
	defer batch.Close()
	if err := batch.DeleteRange(checkpointKey(to.number+1), checkpointKey(math.MaxUint64)); err != nil {
		return err
	}
	// The log records of the abandoned blocks go too: a block indexed again in their place
	// may have no logs, and so no record to replace them.
	if err := batch.DeleteRange(logKey(to.number+1), logKeysEnd); err != nil {
		return err
	}
	if err := batch.Put([]byte(metaKey), encodeMeta(m)); err != nil {
		return err
	}
	if err := batch.Write(); err != nil {
		return fmt.Errorf("roll back log index: %w", err)
	}
	ix.log.Info("log index: chain rewound or reorganised, rolled back", "from", cur.next-1, "to", to.number)
	ix.publish(m)
	return nil
}

// progress logs a long catch-up: its start, a line every progressEvery, and its end.
type progress struct {
	ix      *Index
	from    uint64
	start   time.Time
	last    time.Time
	verbose bool
}

func newProgress(ix *Index, from uint64) *progress {
	now := time.Now()
	p := &progress{ix: ix, from: from, start: now, last: now}
	if head := ix.chain.Head().Number.Uint64(); head+1 >= from+progressFrom {
		p.verbose = true
		ix.log.Info("log index: indexing", "from", from, "to", head, "blocks", head+1-from)
	}
	return p
}

func (p *progress) report(next uint64) {
	if !p.verbose || time.Since(p.last) < progressEvery {
		return
	}
	p.last = time.Now()
	head := p.ix.chain.Head().Number.Uint64()
	elapsed := time.Since(p.start)
	rate := float64(next-min(next, p.from)) / elapsed.Seconds()
	var eta time.Duration
	if rate > 0 && head+1 > next {
		eta = time.Duration(float64(head+1-next) / rate * float64(time.Second))
	}
	p.ix.log.Info("log index: progress", "indexed", next, "head", head,
		"percent", fmt.Sprintf("%.1f", 100*float64(next)/float64(head+1)),
		"blocks/s", int(rate), "eta", eta.Round(time.Second))
}

func (p *progress) finish() {
	if p.verbose {
		p.ix.log.Info("log index: up to date", "head", p.ix.head.Load().next-1, "took", time.Since(p.start).Round(time.Millisecond))
	}
}
