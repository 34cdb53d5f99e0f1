package chaindata

import (
	"context"
	"encoding/json"

	"github.com/ethereum/go-ethereum/core/types"

	"github.com/flashrpc/flashrpc/internal/api/core"
	"github.com/flashrpc/flashrpc/internal/api/param"
	"github.com/flashrpc/flashrpc/internal/ethjson"
	"github.com/flashrpc/flashrpc/internal/preconf"
	"github.com/flashrpc/flashrpc/internal/rpc"
)

// Headers and uncles. eth_getHeaderByNumber and eth_getHeaderByHash answer go-ethereum's
// RPCMarshalHeader shape (ethjson.AppendHeader; the block in progress for `pending` on the
// pre-confirmed endpoint, with its partial hash); null when there is no such block. The
// uncle methods answer an uncle as go-ethereum does (the header's keys plus size and an empty
// uncles list), null when the block or the index is unknown: imported proof-of-work chains
// have uncles, the dev chain never does.

// GetHeaderByNumber answers eth_getHeaderByNumber.
func (a *API) GetHeaderByNumber(ctx context.Context, v preconf.View, p rpc.Params) (any, error) {
	n, err := param.One(p, param.DecodeBlockNumber)
	if err != nil {
		return nil, err
	}
	h, snap, err := a.HeaderByNumber(v, n)
	switch {
	case err != nil:
		return nil, err
	case snap != nil:
		return json.RawMessage(ethjson.AppendHeader(nil, snap.Header())), nil
	case core.IsForecastNumber(v, n):
		return json.RawMessage(ethjson.AppendHeader(nil, a.Forecast(v))), nil // the next block as forecast
	case h == nil:
		return core.Null, nil
	}
	return json.RawMessage(ethjson.AppendHeaderMs(nil, h, a.Chain.TimeMs(h))), nil
}

// GetHeaderByHash answers eth_getHeaderByHash.
func (a *API) GetHeaderByHash(ctx context.Context, v preconf.View, p rpc.Params) (any, error) {
	hash, err := param.One(p, param.DecodeHash)
	if err != nil {
		return nil, err
	}
	if snap := v.SealingByHash(hash); snap != nil { // being written (core's view.go)
		return json.RawMessage(ethjson.AppendHeader(nil, snap.Header())), nil
	}
	h := a.Chain.HeaderByHash(hash)
	if h == nil {
		return core.Null, nil
	}
	return json.RawMessage(ethjson.AppendHeaderMs(nil, h, a.Chain.TimeMs(h))), nil
}

// GetUncleByBlockNumberAndIndex answers eth_getUncleByBlockNumberAndIndex.
func (a *API) GetUncleByBlockNumberAndIndex(ctx context.Context, v preconf.View, p rpc.Params) (any, error) {
	n, index, err := param.Two(p, param.DecodeBlockNumber, param.DecodeIndex)
	if err != nil {
		return nil, err
	}
	block, _, err := a.BlockByNumber(v, n) // the block in progress has no uncles
	if err != nil {
		return nil, err
	}
	return uncleJSON(block, index), nil
}

// GetUncleByBlockHashAndIndex answers eth_getUncleByBlockHashAndIndex.
func (a *API) GetUncleByBlockHashAndIndex(ctx context.Context, v preconf.View, p rpc.Params) (any, error) {
	hash, index, err := param.Two(p, param.DecodeHash, param.DecodeIndex)
	if err != nil {
		return nil, err
	}
	return uncleJSON(a.Chain.BlockByHash(hash), index), nil
}

// uncleJSON returns uncle index of block as go-ethereum's RPCMarshalBlock(inclTx = false)
// writes the uncle as a block of its own, or null.
func uncleJSON(block *types.Block, index uint64) json.RawMessage {
	if block == nil || index >= uint64(len(block.Uncles())) {
		return core.Null
	}
	return ethjson.AppendUncle(nil, block.Uncles()[index])
}
