package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	gethrpc "github.com/ethereum/go-ethereum/rpc"

	"github.com/flashrpc/flashrpc/internal/logs"
	"github.com/flashrpc/flashrpc/internal/rpc"
)

// checkContextEvery is how many blocks a log scan goes between context checks.
const checkContextEvery = 256

// getLogs answers eth_getLogs (service.md 2.3, decisions.md "eth_getLogs limits").
func (a *API) getLogs(ctx context.Context, p rpc.Params) (any, error) {
	if err := checkCount(p, 1); err != nil {
		return nil, err
	}
	var crit logs.Criteria
	if err := decodeArg(p, 0, &crit); err != nil {
		return nil, err
	}
	found, err := a.findLogs(ctx, &crit)
	if err != nil {
		return nil, err
	}
	return json.RawMessage(appendLogs(nil, found)), nil
}

func (a *API) findLogs(ctx context.Context, crit *logs.Criteria) ([]*types.Log, error) {
	if crit.BlockHash != nil {
		h := a.chain.HeaderByHash(*crit.BlockHash)
		if h == nil {
			return nil, errors.New("unknown block")
		}
		return crit.Filter(a.blockLogs(h)), nil
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
			return a.limit(crit.Filter(snap.Logs()), snap.Number(), snap.Number())
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
	var found []*types.Log
	for n := begin; n <= end; n++ {
		if (n-begin)%checkContextEvery == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		h := a.chain.HeaderByNumber(n)
		if h == nil || !crit.MayMatch(h.Bloom) {
			continue
		}
		found = append(found, crit.Filter(a.blockLogs(h))...)
		if len(found) > a.cfg.LogsMaxResults {
			return nil, a.tooManyLogs(begin, n)
		}
	}
	if withPending {
		found = append(found, crit.Filter(snap.Logs())...)
		return a.limit(found, begin, snap.Number())
	}
	return found, nil
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

// blockLogs returns every log of a sealed block, derived fields filled.
func (a *API) blockLogs(h *types.Header) []*types.Log {
	var out []*types.Log
	for _, r := range a.chain.Receipts(h.Hash()) {
		out = append(out, r.Logs...)
	}
	return out
}

// limit refuses a result over the cap.
func (a *API) limit(found []*types.Log, from, to uint64) ([]*types.Log, error) {
	if len(found) > a.cfg.LogsMaxResults {
		return nil, a.tooManyLogs(from, to)
	}
	return found, nil
}

// tooManyLogs is the -32005 answer: it names the range that fits, the blocks before the one
// that crossed the cap (decisions.md; Infura's shape).
func (a *API) tooManyLogs(from, crossed uint64) error {
	fits := crossed
	if crossed > from {
		fits = crossed - 1
	}
	msg := fmt.Sprintf("query returned more than %d results. Try with this block range [%s, %s].",
		a.cfg.LogsMaxResults, hexutil.EncodeUint64(from), hexutil.EncodeUint64(fits))
	if crossed == from {
		msg = fmt.Sprintf("query returned more than %d results in block %s alone; narrow the filter by address or topics.",
			a.cfg.LogsMaxResults, hexutil.EncodeUint64(from))
	}
	return &rpc.Error{Code: rpc.CodeLimitExceeded, Message: msg, Data: map[string]any{
		"from": hexutil.EncodeUint64(from), "to": hexutil.EncodeUint64(fits), "limit": a.cfg.LogsMaxResults,
	}}
}
