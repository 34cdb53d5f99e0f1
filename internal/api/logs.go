package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"sync"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	gethrpc "github.com/ethereum/go-ethereum/rpc"

	"github.com/flashrpc/flashrpc/internal/chain"
	"github.com/flashrpc/flashrpc/internal/ethjson"
	"github.com/flashrpc/flashrpc/internal/logs"
	"github.com/flashrpc/flashrpc/internal/rpc"
)

// checkScanEvery is how many blocks a scan goes between context checks; an indexed search
// checks before each batch of candidate blocks.
const checkScanEvery = 256

// getLogs answers eth_getLogs (service.md 2.3, decisions.md "eth_getLogs limits").
func (a *API) getLogs(ctx context.Context, p rpc.Params) (any, error) {
	if err := checkCount(p, 1); err != nil {
		return nil, err
	}
	var crit logs.Criteria
	if err := decodeArg(p, 0, &crit); err != nil {
		return nil, err
	}
	qctx, cancel := context.WithTimeout(ctx, a.cfg.LogsTimeout)
	defer cancel()
	found, err := a.findLogs(qctx, &crit)
	if err != nil {
		return nil, a.logsError(ctx, err)
	}
	return found, nil
}

// findLogs returns the JSON array of the logs crit selects.
func (a *API) findLogs(ctx context.Context, crit *logs.Criteria) (json.RawMessage, error) {
	if crit.BlockHash != nil {
		h := a.chain.HeaderByHash(*crit.BlockHash)
		if h == nil {
			return nil, errors.New("unknown block")
		}
		return ethjson.AppendLogs(nil, a.chain.FilterLogs(h, crit.Match)), nil
	}
	from, to := gethrpc.LatestBlockNumber, gethrpc.LatestBlockNumber
	if crit.FromBlock != nil {
		from = *crit.FromBlock
	}
	if crit.ToBlock != nil {
		to = *crit.ToBlock
	}
	snap := a.pending()
	if from == gethrpc.PendingBlockNumber && to == gethrpc.PendingBlockNumber {
		if snap == nil { // `pending` is the sealed head
			from, to = gethrpc.LatestBlockNumber, gethrpc.LatestBlockNumber
		} else {
			col := a.newCollector(snap.Number())
			if err := col.add(snap.Number(), crit.Filter(snap.Logs())); err != nil {
				return nil, err
			}
			return col.json(), nil
		}
	}
	// `pending` as toBlock adds the pre-confirmed logs after the sealed ones.
	withPending := to == gethrpc.PendingBlockNumber && snap != nil
	if to == gethrpc.PendingBlockNumber {
		to = gethrpc.LatestBlockNumber
	}
	if from == gethrpc.PendingBlockNumber {
		from = gethrpc.LatestBlockNumber
	}
	if from >= 0 && to >= 0 && from > to {
		return nil, rpc.InvalidParams("invalid block range params")
	}
	head := a.chain.Head().Number.Uint64()
	begin, err := a.resolveLogBound(from, head)
	if err != nil {
		return nil, err
	}
	end, err := a.resolveLogBound(to, head)
	if err != nil {
		return nil, err
	}
	if begin > head || end > head {
		return nil, rpc.InvalidParams("block range extends beyond current head block")
	}
	if begin > end {
		return nil, rpc.InvalidParams("invalid block range params")
	}
	if end-begin > a.cfg.LogsMaxRange {
		return nil, rpc.InvalidParams("exceed maximum block range %d", a.cfg.LogsMaxRange)
	}
	col := a.newCollector(begin)
	defer col.reset() // after json has copied the result out, or on an error
	if err := indexedLogs(ctx, a.chain, a.index, crit, begin, end, col); err != nil {
		return nil, err
	}
	if withPending {
		if err := col.add(snap.Number(), crit.Filter(snap.Logs())); err != nil {
			return nil, err
		}
	}
	return col.json(), nil
}

// resolveLogBound turns a range end into a block number, with go-ethereum's errors.
func (a *API) resolveLogBound(n gethrpc.BlockNumber, head uint64) (uint64, error) {
	switch n {
	case gethrpc.LatestBlockNumber:
		return head, nil
	case gethrpc.EarliestBlockNumber:
		return 0, nil
	case gethrpc.SafeBlockNumber:
		if h := a.chain.Safe(); h != nil {
			return h.Number.Uint64(), nil
		}
		return 0, errors.New("safe header not found")
	case gethrpc.FinalizedBlockNumber:
		if h := a.chain.Finalized(); h != nil {
			return h.Number.Uint64(), nil
		}
		return 0, errors.New("finalized header not found")
	}
	if n < 0 {
		return 0, errors.New("negative block number")
	}
	return uint64(n), nil
}

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
	f := &fetcher{search: s, crit: crit, arenas: &col.arenas}
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
			return &logsTimeoutError{from: begin, reached: batch[0].number}
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
			a.buf = ethjson.AppendLog(a.buf, l)
			b.found++
		})
		b.json = a.buf[start:len(a.buf):len(a.buf)]
	}
}

// arenaChunk is the size of the chunks a jsonArena encodes into.
const arenaChunk = 256 << 10

// arenaChunks recycles arena chunks from one query to the next. An indexed query encodes
// megabytes of JSON into them and logCollector.json copies it out, after which they are free.
// Without it each query allocates them anew, and the garbage collector, with a heap that is
// small beside the database's cache (which lives outside it), runs several cycles per query.
// It is a cache of scratch memory, not state: a query takes chunks and gives them back.
var arenaChunks = sync.Pool{New: func() any { return new([arenaChunk]byte) }}

// jsonArena is where a fetch worker encodes logs: chunks of arenaChunk bytes (more for a block
// whose logs need more) that are filled but never grown. A slice that grows copies what it
// holds each time, about four times over for a result of megabytes; a chunk is written once,
// and the runs handed out of it stay valid until release.
type jsonArena struct {
	buf    []byte              // the current chunk
	pooled []*[arenaChunk]byte // the chunks taken from arenaChunks
}

// reserve makes room for n more bytes after the run buf[start:] being written. When the chunk
// has too little left, the run moves to a new chunk; reserve returns where it now starts.
func (a *jsonArena) reserve(start, n int) int {
	if cap(a.buf)-len(a.buf) >= n {
		return start
	}
	run := a.buf[start:]
	var next []byte
	if len(run)+n <= arenaChunk {
		c := arenaChunks.Get().(*[arenaChunk]byte)
		a.pooled = append(a.pooled, c)
		next = c[:0]
	} else {
		next = make([]byte, 0, 2*(len(run)+n))
	}
	a.buf = append(next, run...)
	return 0
}

// release gives the arena's chunks back for other queries; the runs handed out of them must
// no longer be used.
func (a *jsonArena) release() {
	for _, c := range a.pooled {
		arenaChunks.Put(c)
	}
	a.buf, a.pooled = nil, nil
}

// scanLogs collects the sealed logs of blocks [first, last] that match crit without the index:
// each header's bloom, then the receipts of the blocks whose bloom may match. It is the path
// of blocks not indexed yet, the baseline of the index's benchmarks, and the reference its
// tests compare with.
func scanLogs(ctx context.Context, c *chain.Chain, crit *logs.Criteria, first, last uint64, col *logCollector) error {
	for n := first; n <= last; n++ {
		if (n-first)%checkScanEvery == 0 && ctx.Err() != nil {
			return &logsTimeoutError{from: col.begin, reached: n}
		}
		h := c.HeaderByNumber(n)
		if h == nil || !crit.MayMatch(h.Bloom) {
			continue
		}
		if err := col.add(n, c.FilterLogs(h, crit.Match)); err != nil {
			return err
		}
	}
	return nil
}

// logCollector gathers the JSON of an eth_getLogs result, block by block, up to the result
// cap. It owns the arenas the fetch workers encode into; reset recycles them, once json has
// copied the result out or the query failed.
type logCollector struct {
	parts  [][]byte // each a run of one block's logs, separated by commas, without brackets
	size   int      // bytes in parts
	count  int      // logs in parts
	max    int
	begin  uint64 // first block of the query
	arenas [fetchWorkers]jsonArena
}

func (a *API) newCollector(begin uint64) *logCollector {
	return &logCollector{max: a.cfg.LogsMaxResults, begin: begin}
}

// add appends found, the logs of block n, which must follow the blocks added before; past the
// cap it returns the -32005 answer.
func (c *logCollector) add(n uint64, found []*types.Log) error {
	if len(found) == 0 {
		return nil
	}
	size := 0
	for _, l := range found {
		size += 1 + ethjson.MaxLogJSON(l)
	}
	enc := make([]byte, 0, size)
	for i, l := range found {
		if i > 0 {
			enc = append(enc, ',')
		}
		enc = ethjson.AppendLog(enc, l)
	}
	return c.addJSON(n, len(found), enc)
}

// addJSON is add for logs encoded already: count logs of block n, as ethjson.AppendLog writes them,
// separated by commas. It keeps enc.
func (c *logCollector) addJSON(n uint64, count int, enc []byte) error {
	if count == 0 {
		return nil
	}
	first := c.count == 0
	c.parts = append(c.parts, enc)
	c.size += len(enc)
	c.count += count
	if c.count > c.max {
		return tooManyLogs(c.begin, n, first, c.max)
	}
	return nil
}

// reset drops what was collected and recycles the arenas.
func (c *logCollector) reset() {
	c.parts, c.size, c.count = nil, 0, 0
	for i := range c.arenas {
		c.arenas[i].release()
	}
}

// json returns the JSON array of the logs collected, in one new buffer of exactly its size.
func (c *logCollector) json() json.RawMessage {
	out := make([]byte, 0, c.size+len(c.parts)+2) // brackets, and commas between the parts
	out = append(out, '[')
	for i, p := range c.parts {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, p...)
	}
	return append(out, ']')
}

// tooManyLogs is the -32005 answer (decisions.md; Infura's shape): it names the range that
// fits, the blocks before the one that crossed the cap. When that block alone holds too many,
// no range fits and the message says to narrow the filter.
func tooManyLogs(from, crossed uint64, alone bool, limit int) error {
	fits := crossed - 1
	msg := fmt.Sprintf("query returned more than %d results. Try with this block range [%s, %s].",
		limit, hexutil.EncodeUint64(from), hexutil.EncodeUint64(fits))
	if alone || crossed == from {
		fits = crossed
		msg = fmt.Sprintf("query returned more than %d results in block %s alone; narrow the filter by address or topics.",
			limit, hexutil.EncodeUint64(crossed))
		from = crossed
	}
	return &rpc.Error{Code: rpc.CodeLimitExceeded, Message: msg, Data: map[string]any{
		"from": hexutil.EncodeUint64(from), "to": hexutil.EncodeUint64(fits), "limit": limit,
	}}
}

// logsTimeoutError says the query's time ran out when it reached block reached: blocks
// [from, reached-1] were searched.
type logsTimeoutError struct{ from, reached uint64 }

func (e *logsTimeoutError) Error() string { return "query timeout exceeded" }

// logsError maps findLogs' errors: a query that ran out of --rpc.logs.timeout is -32005
// "query timeout exceeded" (Infura's text), naming the blocks it searched in time; when the
// request's own deadline (--rpc.timeout) passed first, the transport answers -32002.
func (a *API) logsError(ctx context.Context, err error) error {
	var timeout *logsTimeoutError
	if !errors.As(err, &timeout) {
		return err
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	msg := fmt.Sprintf("query timeout exceeded (%v)", a.cfg.LogsTimeout)
	data := map[string]any{"timeout": a.cfg.LogsTimeout.String()}
	if timeout.reached > timeout.from {
		from, to := hexutil.EncodeUint64(timeout.from), hexutil.EncodeUint64(timeout.reached-1)
		msg += fmt.Sprintf(". Blocks [%s, %s] were searched in time: try a narrower range.", from, to)
		data["from"], data["to"] = from, to
	}
	return &rpc.Error{Code: rpc.CodeLimitExceeded, Message: msg, Data: data}
}
