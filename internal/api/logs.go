package api

import (
	"context"
	"encoding/json"

	gethrpc "github.com/ethereum/go-ethereum/rpc"

	"github.com/flashrpc/flashrpc/internal/ethjson"
	"github.com/flashrpc/flashrpc/internal/logs"
	"github.com/flashrpc/flashrpc/internal/preconf"
	"github.com/flashrpc/flashrpc/internal/rpc"
)

// eth_getLogs, in four files: this one plans the query (block range against the request's
// view, limits); logs_sealed.go collects the sealed part (the log index, or a scan of header
// blooms and receipts); logs_pending.go the pre-confirmed part; logs_json.go gathers the JSON
// answer up to the result cap. Its errors are mapped in errors.go.

// getLogs answers eth_getLogs (service.md 2.3, decisions.md "eth_getLogs limits").
func (a *API) getLogs(ctx context.Context, v preconf.View, p rpc.Params) (any, error) {
	if err := checkCount(p, 1); err != nil {
		return nil, err
	}
	var crit logs.Criteria
	if err := decodeArg(p, 0, &crit); err != nil {
		return nil, err
	}
	qctx, cancel := context.WithTimeout(ctx, a.cfg.LogsTimeout)
	defer cancel()
	found, err := a.findLogs(qctx, v, &crit)
	if err != nil {
		return nil, logsError(ctx, err, a.cfg.LogsTimeout)
	}
	return found, nil
}

// findLogs returns the JSON array of the logs crit selects in v: sealed blocks up to v's head,
// then the block in progress that builds on it, so that a log is neither counted twice nor
// missed while its block seals.
func (a *API) findLogs(ctx context.Context, v preconf.View, crit *logs.Criteria) (json.RawMessage, error) {
	if crit.BlockHash != nil {
		if a.up != nil && !a.localAbove(*crit.BlockHash, a.up.Number()) {
			return a.upstreamLogsByHash(ctx, *crit.BlockHash)
		}
		if s := v.Sealing; s != nil && *crit.BlockHash == s.Block.Hash() {
			col := a.newCollector(s.Number())
			if err := addPendingLogs(col, s, crit); err != nil {
				return nil, err
			}
			return col.json(), nil
		}
		h := a.chain.HeaderByHash(*crit.BlockHash)
		if h == nil {
			return nil, errLogsUnknownBlock
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
	snap := v.Pending
	if from == gethrpc.PendingBlockNumber && to == gethrpc.PendingBlockNumber {
		if snap == nil { // `pending` is the sealed head
			from, to = gethrpc.LatestBlockNumber, gethrpc.LatestBlockNumber
		} else {
			col := a.newCollector(snap.Number())
			if err := addPendingLogs(col, snap, crit); err != nil {
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
		return nil, errLogsRangeReversed()
	}
	head := v.Latest.Number.Uint64()
	begin, err := resolveLogBound(v, from)
	if err != nil {
		return nil, err
	}
	end, err := resolveLogBound(v, to)
	if err != nil {
		return nil, err
	}
	// The sealed block the chain is still writing (pre-confirmed endpoint): its logs come
	// after Latest's when the range names its number or ends at `pending`.
	sealing := v.Sealing
	if sealing != nil && (end == head+1 || withPending) {
		end = head
		if begin == head+1 { // the sealing block only, and the pending one after it
			col := a.newCollector(begin)
			if err := addPendingLogs(col, sealing, crit); err != nil {
				return nil, err
			}
			if withPending {
				if err := addPendingLogs(col, snap, crit); err != nil {
					return nil, err
				}
			}
			return col.json(), nil
		}
	} else {
		sealing = nil
	}
	if begin > head || end > head {
		return nil, errLogsBeyondHead()
	}
	if begin > end {
		return nil, errLogsRangeReversed()
	}
	if end-begin > a.cfg.LogsMaxRange {
		return nil, errLogsRangeTooWide(a.cfg.LogsMaxRange)
	}
	col := a.newCollector(begin)
	defer col.reset() // after json has copied the result out, or on an error
	if a.up != nil && begin <= a.up.Number() {
		// The upstream's part of the range (fork.go), then the local part.
		last := min(end, a.up.Number())
		if err := a.upstreamLogs(ctx, crit, begin, last, col); err != nil {
			return nil, err
		}
		if end == last {
			return col.json(), nil
		}
		begin = last + 1
	}
	if err := indexedLogs(ctx, a.chain, a.index, crit, begin, end, col); err != nil {
		return nil, err
	}
	if sealing != nil {
		if err := addPendingLogs(col, sealing, crit); err != nil {
			return nil, err
		}
	}
	if withPending {
		if err := addPendingLogs(col, snap, crit); err != nil {
			return nil, err
		}
	}
	return col.json(), nil
}

// resolveLogBound turns a range end into a block number as of v, with go-ethereum's errors.
func resolveLogBound(v preconf.View, n gethrpc.BlockNumber) (uint64, error) {
	switch n {
	case gethrpc.LatestBlockNumber:
		return v.Latest.Number.Uint64(), nil
	case gethrpc.EarliestBlockNumber:
		return 0, nil
	case gethrpc.SafeBlockNumber:
		if v.Safe != nil {
			return v.Safe.Number.Uint64(), nil
		}
		return 0, errLogsSafeNotFound
	case gethrpc.FinalizedBlockNumber:
		if v.Finalized != nil {
			return v.Finalized.Number.Uint64(), nil
		}
		return 0, errLogsFinalizedNotFound
	}
	if n < 0 {
		return 0, errLogsNegativeBlock
	}
	return uint64(n), nil
}
