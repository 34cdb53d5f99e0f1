package events

import (
	"context"
	"runtime"
	"sync"

	"github.com/ethereum/go-ethereum/core/types"

	"github.com/flashrpc/flashrpc/internal/api/core"
	"github.com/flashrpc/flashrpc/internal/chain"
	"github.com/flashrpc/flashrpc/internal/ethjson"
	"github.com/flashrpc/flashrpc/internal/logs"
)

// The sealed part of eth_getLogs: the logs of blocks [begin, end], all at or below the
// request's view's head, from the log index where it covers them and from a scan of header
// blooms and receipts where it does not.

// checkScanEvery is how many blocks a scan goes between context checks; an indexed search
// checks before each batch of candidate blocks.
const checkScanEvery = 256

// Reading the candidate blocks of an indexed search: fetchBatch at a time, on up to
// fetchWorkers goroutines, which also encode the logs found as JSON. Each block costs a
// database read and the encoding of its matching logs, so a search that names thousands of
// blocks is bound by them and gains from more than one core.
const (
	fetchBatch   = 64
	fetchWorkers = 4
)

// indexedLogs collects the sealed logs of blocks [begin, end] that match crit: those of the
// blocks the index names, from the index's log records, then a scan of the blocks it does not
// cover yet (all of them when ix is nil). Either way each candidate block's logs are filtered
// with crit.Match, so the result is the scan's, in block and log order. It streams: memory
// holds one posting chunk per list, one batch of candidate blocks and the logs found, never
// anything per block of the range.
func indexedLogs(ctx context.Context, c *chain.Chain, ix *logs.Index, crit *logs.Criteria, begin, end uint64, col *logCollector) error {
	s := ix.Search(crit, begin, end)
	defer s.Close()
	f := &fetcher{chain: c, search: s, crit: crit, arenas: &col.arenas}
	batch := make([]candidate, 0, fetchBatch)
	for more := true; more; {
		batch = batch[:0]
		for len(batch) < fetchBatch {
			if more = s.Blocks.Next(); !more {
				break
			}
			batch = append(batch, candidate{number: s.Blocks.At()})
		}
		if len(batch) == 0 {
			break
		}
		if ctx.Err() != nil {
			return &core.LogsTimeoutError{From: begin, Reached: batch[0].number}
		}
		if err := f.fetch(batch); err != nil { // a damaged record (being rebuilt) or a failed read
			col.reset()
			return scanLogs(ctx, c, crit, begin, end, col)
		}
		for _, b := range batch {
			if err := col.addJSON(b.number, b.found, b.json); err != nil {
				return err
			}
		}
	}
	if s.Blocks.Err() != nil { // a damaged index: Close has it rebuilt; this query scans
		col.reset()
		return scanLogs(ctx, c, crit, begin, end, col)
	}
	return scanLogs(ctx, c, crit, s.ScanFrom, end, col)
}

// candidate is a block an indexed search named, and then its matching logs.
type candidate struct {
	number uint64
	found  int    // matching logs
	json   []byte // their JSON, separated by commas, without brackets
	err    error
}

// fetcher reads the matching logs of candidate blocks from the index and encodes them, on
// several goroutines, each into an arena of its own (the collector's) that candidates' json
// slices alias.
type fetcher struct {
	chain  *chain.Chain // the blocks' millisecond times (Denim)
	search *logs.Search
	crit   *logs.Criteria
	arenas *[fetchWorkers]jsonArena
}

// fetch fills in each candidate's matching logs; it returns the first error a candidate met.
func (f *fetcher) fetch(batch []candidate) error {
	workers := min(fetchWorkers, runtime.GOMAXPROCS(0), len(batch))
	if workers <= 1 {
		f.work(batch, 0, 1)
	} else {
		var wg sync.WaitGroup
		for w := range workers {
			wg.Go(func() { f.work(batch, w, workers) })
		}
		wg.Wait()
	}
	for i := range batch {
		if batch[i].err != nil {
			return batch[i].err
		}
	}
	return nil
}

// work fills in the candidates w, w+step, w+2×step… of batch, encoding into arena w.
func (f *fetcher) work(batch []candidate, w, step int) {
	a := &f.arenas[w]
	ms := sealedMs{c: f.chain}
	for i := w; i < len(batch); i += step {
		b := &batch[i]
		start := len(a.buf)
		b.err = f.search.BlockLogs(b.number, func(l *types.Log) {
			if !f.crit.Match(l) {
				return
			}
			start = a.reserve(start, 1+ethjson.MaxLogJSON(l))
			if b.found > 0 {
				a.buf = append(a.buf, ',')
			}
			a.buf = ethjson.AppendLogMs(a.buf, l, ms.of(l))
			b.found++
		})
		b.json = a.buf[start:len(a.buf):len(a.buf)]
	}
}

// scanLogs collects the sealed logs of blocks [first, last] that match crit without the index:
// each header's bloom, then the receipts of the blocks whose bloom may match. It is the path
// of blocks not indexed yet, the baseline of the index's benchmarks, and the reference its
// tests compare with.
func scanLogs(ctx context.Context, c *chain.Chain, crit *logs.Criteria, first, last uint64, col *logCollector) error {
	for n := first; n <= last; n++ {
		if (n-first)%checkScanEvery == 0 && ctx.Err() != nil {
			return &core.LogsTimeoutError{From: col.begin, Reached: n}
		}
		h := c.HeaderByNumber(n)
		if h == nil || !crit.MayMatch(h.Bloom) {
			continue
		}
		if err := col.add(n, c.FilterLogs(h, crit.Match), c.TimeMs(h)); err != nil {
			return err
		}
	}
	return nil
}
