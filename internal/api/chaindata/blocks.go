package chaindata

import (
	"context"
	"encoding/json"

	"github.com/ethereum/go-ethereum/core/types"

	"github.com/flashrpc/flashrpc/internal/api/core"
	"github.com/flashrpc/flashrpc/internal/api/param"
	"github.com/flashrpc/flashrpc/internal/preconf"
	"github.com/flashrpc/flashrpc/internal/rpc"
)

// GetBlockByNumber answers eth_getBlockByNumber.
func (a *API) GetBlockByNumber(ctx context.Context, v preconf.View, p rpc.Params) (any, error) {
	n, fullTx, err := param.Two(p, param.DecodeBlockNumber, param.DecodeBool)
	if err != nil {
		return nil, err
	}
	h, snap, err := a.HeaderByNumber(v, n)
	switch {
	case err != nil:
		return nil, err
	case snap != nil:
		return a.PendingBlockJSON(snap, fullTx), nil
	case core.IsForecastNumber(v, n):
		return a.ForecastBlockJSON(v, fullTx), nil // no block in progress: the next block as forecast
	case h == nil:
		return core.Null, nil
	case h == v.Latest:
		return a.HeadBlockJSON(h, fullTx), nil // the hot path: no hashing, no reading
	}
	block := a.Chain.BlockByHash(h.Hash())
	if block == nil {
		return core.Null, nil
	}
	return a.SealedBlockJSON(block, fullTx), nil
}

// GetBlockByHash answers eth_getBlockByHash.
func (a *API) GetBlockByHash(ctx context.Context, v preconf.View, p rpc.Params) (any, error) {
	hash, fullTx, err := param.Two(p, param.DecodeHash, param.DecodeBool)
	if err != nil {
		return nil, err
	}
	switch block, snap := a.BlockByHash(v, hash); {
	case snap != nil:
		return a.PendingBlockJSON(snap, fullTx), nil
	case block == nil:
		return core.Null, nil
	default:
		return a.SealedBlockJSON(block, fullTx), nil
	}
}

// GetBlockTransactionCountByNumber answers eth_getBlockTransactionCountByNumber.
func (a *API) GetBlockTransactionCountByNumber(ctx context.Context, v preconf.View, p rpc.Params) (any, error) {
	return a.countByNumber(v, p, func(b *types.Block) int { return len(b.Transactions()) })
}

// GetBlockTransactionCountByHash answers eth_getBlockTransactionCountByHash.
func (a *API) GetBlockTransactionCountByHash(ctx context.Context, v preconf.View, p rpc.Params) (any, error) {
	return a.countByHash(v, p, func(b *types.Block) int { return len(b.Transactions()) })
}

// GetUncleCountByBlockNumber answers eth_getUncleCountByBlockNumber.
func (a *API) GetUncleCountByBlockNumber(ctx context.Context, v preconf.View, p rpc.Params) (any, error) {
	return a.countByNumber(v, p, func(b *types.Block) int { return len(b.Uncles()) })
}

// GetUncleCountByBlockHash answers eth_getUncleCountByBlockHash.
func (a *API) GetUncleCountByBlockHash(ctx context.Context, v preconf.View, p rpc.Params) (any, error) {
	return a.countByHash(v, p, func(b *types.Block) int { return len(b.Uncles()) })
}

// countByNumber answers the *CountByBlockNumber methods: count of the block a number or tag
// names, the block in progress included (it has no uncles); null when there is no such block.
func (a *API) countByNumber(v preconf.View, p rpc.Params, count func(*types.Block) int) (any, error) {
	n, err := param.One(p, param.DecodeBlockNumber)
	if err != nil {
		return nil, err
	}
	block, snap, err := a.BlockByNumber(v, n)
	if err != nil {
		return nil, err
	}
	return countOf(blockOf(block, snap), count), nil
}

// countByHash answers the *CountByBlockHash methods; null for an unknown hash.
func (a *API) countByHash(v preconf.View, p rpc.Params, count func(*types.Block) int) (any, error) {
	hash, err := param.One(p, param.DecodeHash)
	if err != nil {
		return nil, err
	}
	return countOf(blockOf(a.BlockByHash(v, hash)), count), nil
}

func countOf(block *types.Block, count func(*types.Block) int) json.RawMessage {
	if block == nil {
		return core.Null
	}
	return core.Quantity(uint64(count(block)))
}

// blockOf returns the block a lookup found: the snapshot's (the block in progress, or the
// one being written), else block (nil: none).
func blockOf(block *types.Block, snap *preconf.Snapshot) *types.Block {
	if snap != nil {
		return snap.Block
	}
	return block
}
