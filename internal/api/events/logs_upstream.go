package events

import (
	"context"
	"encoding/json"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"

	"github.com/flashrpc/flashrpc/internal/api/core"
	"github.com/flashrpc/flashrpc/internal/logs"
)

// The upstream's part of eth_getLogs in fork mode (core.Upstream.Logs and LogsByHash): blocks
// at or below the fork block.

// upstreamLogs adds the logs crit selects in the upstream's blocks first..last (at most the
// fork block) to col.
func (a *API) upstreamLogs(ctx context.Context, crit *logs.Criteria, first, last uint64, col *logCollector) error {
	items, err := a.Up.Logs(ctx, crit, first, last)
	if err != nil {
		return err
	}
	return addUpstreamLogs(col, items)
}

// upstreamLogsByHash answers eth_getLogs with a blockHash the local chain does not hold above
// the fork block: the upstream's block, when it is at most the fork block.
func (a *API) upstreamLogsByHash(ctx context.Context, hash common.Hash) (json.RawMessage, error) {
	res, ok, err := a.Up.LogsByHash(ctx, hash)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, core.ErrLogsUnknownBlock
	}
	return res, nil
}

// addUpstreamLogs adds the logs of an upstream eth_getLogs answer to col, block by block, so
// that the result cap names the block that crossed it.
func addUpstreamLogs(col *logCollector, items []json.RawMessage) error {
	for i := 0; i < len(items); {
		n := logBlock(items[i])
		j := i + 1
		for j < len(items) && logBlock(items[j]) == n {
			j++
		}
		enc := []byte{}
		for k := i; k < j; k++ {
			if k > i {
				enc = append(enc, ',')
			}
			enc = append(enc, items[k]...)
		}
		if err := col.addJSON(n, j-i, enc); err != nil {
			return err
		}
		i = j
	}
	return nil
}

// logBlock returns the block number of an upstream log.
func logBlock(raw json.RawMessage) uint64 {
	var l struct {
		BlockNumber hexutil.Uint64 `json:"blockNumber"`
	}
	json.Unmarshal(raw, &l)
	return uint64(l.BlockNumber)
}
