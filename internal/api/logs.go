package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"sync"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	gethrpc "github.com/ethereum/go-ethereum/rpc"

	"github.com/flashrpc/flashrpc/internal/chain"
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
	return json.RawMessage(appendLogs(nil, found)), nil
}

func (a *API) findLogs(ctx context.Context, crit *logs.Criteria) ([]*types.Log, error) {
	if crit.BlockHash != nil {
		h := a.chain.HeaderByHash(*crit.BlockHash)
		if h == nil {
			return nil, errors.New("unknown block")
		}
		return a.chain.FilterLogs(h, crit.Match), nil
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
			return col.found, col.add(snap.Number(), crit.Filter(snap.Logs()))
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
	if err := indexedLogs(ctx, a.chain, a.index, crit, begin, end, col); err != nil {
		return nil, err
	}
	if withPending {
		if err := col.add(snap.Number(), crit.Filter(snap.Logs())); err != nil {
			return nil, err
		}
	}
	return col.found, nil
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
// fetchWorkers goroutines. Each block costs a few database reads, so a search that names
// thousands of blocks is bound by them and gains from more than one core.
const (
	fetchBatch   = 64
	fetchWorkers = 4
)

// indexedLogs collects the sealed logs of blocks [begin, end] that match crit: the blocks the
// index names, then a scan of the blocks it does not cover yet (all of them when ix is nil).
// Either way each candidate block's receipts are read and filtered with crit.Match, so the
// result is the scan's, in block and log order. It streams: memory holds one posting chunk
// per list, one batch of candidate blocks and the logs found, never anything per block of the
// range.
func indexedLogs(ctx context.Context, c *chain.Chain, ix *logs.Index, crit *logs.Criteria, begin, end uint64, col *logCollector) error {
	s := ix.Search(crit, begin, end)
	defer s.Close()
	batch := make([]candidate, 0, fetchBatch)
	for more := true; more; {
		batch = batch[:0]
		for len(batch) < fetchBatch {
			if more = s.Blocks.Next(); !more {
				break
			}
			n := s.Blocks.At()
			hash, time, ok := s.Block(n)
			batch = append(batch, candidate{number: n, hash: hash, time: time, known: ok})
		}
		if len(batch) == 0 {
			break
		}
		if ctx.Err() != nil {
			return &logsTimeoutError{from: begin, reached: batch[0].number}
		}
		fetchLogs(c, crit, batch)
		for _, b := range batch {
			if err := col.add(b.number, b.logs); err != nil {
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
	hash   common.Hash
	time   uint64
	known  bool // hash and time come from the index; otherwise the chain is asked
	logs   []*types.Log
}

// fetchLogs fills in the matching logs of each candidate, on several goroutines when there
// are enough of them.
func fetchLogs(c *chain.Chain, crit *logs.Criteria, batch []candidate) {
	workers := min(fetchWorkers, runtime.GOMAXPROCS(0), len(batch))
	if workers <= 1 {
		for i := range batch {
			batch[i].logs = candidateLogs(c, crit, &batch[i])
		}
		return
	}
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := w; i < len(batch); i += workers {
				batch[i].logs = candidateLogs(c, crit, &batch[i])
			}
		})
	}
	wg.Wait()
}

// candidateLogs reads one candidate block's matching logs. With the hash and time from the
// index only its receipts are read (and its body when a log matches).
func candidateLogs(c *chain.Chain, crit *logs.Criteria, b *candidate) []*types.Log {
	if b.known {
		return c.FilterBlockLogs(b.hash, b.number, b.time, crit.Match)
	}
	if h := c.HeaderByNumber(b.number); h != nil {
		return c.FilterLogs(h, crit.Match)
	}
	return nil
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

// logCollector gathers an eth_getLogs result up to the result cap.
type logCollector struct {
	found []*types.Log
	max   int
	begin uint64 // first block of the query
}

func (a *API) newCollector(begin uint64) *logCollector {
	return &logCollector{max: a.cfg.LogsMaxResults, begin: begin}
}

// add appends the logs of block n, which must follow the blocks added before; past the cap it
// returns the -32005 answer.
func (c *logCollector) add(n uint64, found []*types.Log) error {
	if len(found) == 0 {
		return nil
	}
	first := len(c.found) == 0
	c.found = append(c.found, found...)
	if len(c.found) > c.max {
		return tooManyLogs(c.begin, n, first, c.max)
	}
	return nil
}

func (c *logCollector) reset() { c.found = nil }

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
