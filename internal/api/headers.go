package api

import (
	"context"
	"encoding/json"

	"github.com/ethereum/go-ethereum/core/types"

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

func (a *API) getHeaderByNumber(ctx context.Context, v preconf.View, p rpc.Params) (any, error) {
	if err := checkCount(p, 1); err != nil {
		return nil, err
	}
	n, err := decodeBlockNumber(p, 0, 0, true)
	if err != nil {
		return nil, err
	}
	h, snap, err := a.headerByNumber(v, n)
	switch {
	case err != nil:
		return nil, err
	case snap != nil:
		return json.RawMessage(ethjson.AppendHeader(nil, snap.Header())), nil
	case h == nil:
		return nullResult, nil
	}
	return json.RawMessage(ethjson.AppendHeader(nil, h)), nil
}

func (a *API) getHeaderByHash(ctx context.Context, v preconf.View, p rpc.Params) (any, error) {
	if err := checkCount(p, 1); err != nil {
		return nil, err
	}
	hash, err := decodeHash(p, 0)
	if err != nil {
		return nil, err
	}
	if snap := v.SealingByHash(hash); snap != nil { // being written (view.go)
		return json.RawMessage(ethjson.AppendHeader(nil, snap.Header())), nil
	}
	h := a.chain.HeaderByHash(hash)
	if h == nil {
		return nullResult, nil
	}
	return json.RawMessage(ethjson.AppendHeader(nil, h)), nil
}

func (a *API) getUncleByBlockNumberAndIndex(ctx context.Context, v preconf.View, p rpc.Params) (any, error) {
	if err := checkCount(p, 2); err != nil {
		return nil, err
	}
	n, err := decodeBlockNumber(p, 0, 0, true)
	if err != nil {
		return nil, err
	}
	index, err := decodeIndex(p, 1)
	if err != nil {
		return nil, err
	}
	block, _, err := a.blockByNumber(v, n) // the block in progress has no uncles
	if err != nil {
		return nil, err
	}
	return uncleJSON(block, index), nil
}

func (a *API) getUncleByBlockHashAndIndex(ctx context.Context, v preconf.View, p rpc.Params) (any, error) {
	if err := checkCount(p, 2); err != nil {
		return nil, err
	}
	hash, err := decodeHash(p, 0)
	if err != nil {
		return nil, err
	}
	index, err := decodeIndex(p, 1)
	if err != nil {
		return nil, err
	}
	return uncleJSON(a.chain.BlockByHash(hash), index), nil
}

// uncleJSON returns uncle index of block as go-ethereum's RPCMarshalBlock(inclTx = false)
// writes the uncle as a block of its own, or null.
func uncleJSON(block *types.Block, index uint64) json.RawMessage {
	if block == nil || index >= uint64(len(block.Uncles())) {
		return nullResult
	}
	return ethjson.AppendUncle(nil, block.Uncles()[index])
}
