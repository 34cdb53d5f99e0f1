package events

import (
	"context"
	"encoding/json"

	gethrpc "github.com/ethereum/go-ethereum/rpc"

	"github.com/flashrpc/flashrpc/internal/api/core"
	"github.com/flashrpc/flashrpc/internal/api/param"
	"github.com/flashrpc/flashrpc/internal/ethjson"
	"github.com/flashrpc/flashrpc/internal/logs"
	"github.com/flashrpc/flashrpc/internal/preconf"
	"github.com/flashrpc/flashrpc/internal/rpc"
)

// eth_getLogs, in four files: this one plans the query (block range against the request's
// view, limits); logs_sealed.go collects the sealed part (the log index, or a scan of header
// blooms and receipts); logs_pending.go the pre-confirmed part; logs_json.go gathers the JSON
// answer up to the result cap. Its errors are built in core's errors.go.

// GetLogs answers eth_getLogs (service.md 2.3, decisions.md "eth_getLogs limits").
func (a *API) GetLogs(ctx context.Context, v preconf.View, p rpc.Params) (any, error) {
	if err := param.CheckCount(p, 1); err != nil {
		return nil, err
	}
	var crit logs.Criteria
	if err := param.DecodeArg(p, 0, &crit); err != nil {
		return nil, err
	}
	qctx, cancel := context.WithTimeout(ctx, a.cfg.LogsTimeout)
	defer cancel()
	found, err := a.findLogs(qctx, v, &crit)
	if err != nil {
		return nil, core.LogsError(ctx, err, a.cfg.LogsTimeout)
	}
	return found, nil
}

// findLogs returns the JSON array of the logs crit selects in v: sealed blocks up to v's head,
// then the block in progress that builds on it, so that a log is neither counted twice nor
// missed while its block seals.
func (a *API) findLogs(ctx context.Context, v preconf.View, crit *logs.Criteria) (json.RawMessage, error) {
	if crit.BlockHash != nil {
		if a.Up != nil && !a.LocalAbove(*crit.BlockHash, a.Up.Number()) {
			return a.upstreamLogsByHash(ctx, *crit.BlockHash)
		}
		if s := v.Sealing; s != nil && *crit.BlockHash == s.Block.Hash() {
			col := a.newCollector(s.Number())
			if err := addPendingLogs(col, s, crit); err != nil {
				return nil, err
			}
			return col.json(), nil
		}
		h := a.Chain.HeaderByHash(*crit.BlockHash)
		if h == nil {
			return nil, core.ErrLogsUnknownBlock
		}
		return ethjson.AppendLogsMs(nil, a.Chain.FilterLogs(h, crit.Match), a.Chain.TimeMs(h)), nil
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
		return nil, core.ErrLogsRangeReversed()
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
		return nil, core.ErrLogsBeyondHead()
	}
	if begin > end {
		return nil, core.ErrLogsRangeReversed()
	}
	if end-begin > a.cfg.LogsMaxRange {
		return nil, core.ErrLogsRangeTooWide(a.cfg.LogsMaxRange)
	}
	col := a.newCollector(begin)
	defer col.reset() // after json has copied the result out, or on an error
	if a.Up != nil && begin <= a.Up.Number() {
		// The upstream's part of the range (logs_upstream.go), then the local part.
		last := min(end, a.Up.Number())
		if err := a.upstreamLogs(ctx, crit, begin, last, col); err != nil {
			return nil, err
		}
		if end == last {
			return col.json(), nil
		}
		begin = last + 1
	}
	if err := indexedLogs(ctx, a.Chain, a.index, crit, begin, end, col); err != nil {
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
		return 0, core.ErrLogsSafeNotFound
	case gethrpc.FinalizedBlockNumber:
		if v.Finalized != nil {
			return v.Finalized.Number.Uint64(), nil
		}
		return 0, core.ErrLogsFinalizedNotFound
	}
	if n < 0 {
		return 0, core.ErrLogsNegativeBlock
	}
	return uint64(n), nil
}
