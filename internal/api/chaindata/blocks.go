package chaindata

import (
	"context"

	"github.com/ethereum/go-ethereum/core/types"

	"github.com/flashrpc/flashrpc/internal/api/core"
	"github.com/flashrpc/flashrpc/internal/api/param"
	"github.com/flashrpc/flashrpc/internal/preconf"
	"github.com/flashrpc/flashrpc/internal/rpc"
)

// GetBlockByNumber answers eth_getBlockByNumber.
func (a *API) GetBlockByNumber(ctx context.Context, v preconf.View, p rpc.Params) (any, error) {
	if err := param.CheckCount(p, 2); err != nil {
		return nil, err
	}
	n, err := param.DecodeBlockNumber(p, 0, 0, true)
	if err != nil {
		return nil, err
	}
	fullTx, err := param.DecodeBool(p, 1)
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
	if err := param.CheckCount(p, 2); err != nil {
		return nil, err
	}
	hash, err := param.DecodeHash(p, 0)
	if err != nil {
		return nil, err
	}
	fullTx, err := param.DecodeBool(p, 1)
	if err != nil {
		return nil, err
	}
	if snap := v.SealingByHash(hash); snap != nil { // being written (core's view.go)
		return a.PendingBlockJSON(snap, fullTx), nil
	}
	block := a.Chain.BlockByHash(hash)
	if block == nil {
		return core.Null, nil
	}
	return a.SealedBlockJSON(block, fullTx), nil
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
	if err := param.CheckCount(p, 1); err != nil {
		return nil, err
	}
	n, err := param.DecodeBlockNumber(p, 0, 0, true)
	if err != nil {
		return nil, err
	}
	block, snap, err := a.BlockByNumber(v, n)
	if err != nil {
		return nil, err
	}
	if snap != nil {
		block = snap.Block
	}
	if block == nil {
		return core.Null, nil
	}
	return core.Quantity(uint64(count(block))), nil
}

// countByHash answers the *CountByBlockHash methods; null for an unknown hash.
func (a *API) countByHash(v preconf.View, p rpc.Params, count func(*types.Block) int) (any, error) {
	if err := param.CheckCount(p, 1); err != nil {
		return nil, err
	}
	hash, err := param.DecodeHash(p, 0)
	if err != nil {
		return nil, err
	}
	if snap := v.SealingByHash(hash); snap != nil { // being written (core's view.go)
		return core.Quantity(uint64(count(snap.Block))), nil
	}
	block := a.Chain.BlockByHash(hash)
	if block == nil {
		return core.Null, nil
	}
	return core.Quantity(uint64(count(block))), nil
}
