package chaindata

import (
	"context"
	"encoding/json"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/flashrpc/flashrpc/internal/api/core"
	"github.com/flashrpc/flashrpc/internal/api/param"
	"github.com/flashrpc/flashrpc/internal/chain"
	"github.com/flashrpc/flashrpc/internal/ethjson"
	"github.com/flashrpc/flashrpc/internal/preconf"
	"github.com/flashrpc/flashrpc/internal/rpc"
)

// Transactions and receipts are looked up in the request's view (core's view.go): in the block in
// progress (pre-confirmed endpoint only), then among the blocks sealed up to the view's head,
// then (transactions only, pre-confirmed endpoint only) in the pool. The standard endpoint
// shows sealed data only: a pre-confirmed transaction appears there when its block is sealed.
// So do both endpoints of a chain without pre-confirmations (core.ShowsPreconfirmations), as
// Base's node since Denim: a transaction is found once its block is sealed.

// GetTransactionByHash answers eth_getTransactionByHash (poolThenView).
func (a *API) GetTransactionByHash(ctx context.Context, p rpc.Params) (any, error) {
	hash, err := param.One(p, param.DecodeHash)
	if err != nil {
		return nil, err
	}
	pooled, v := a.poolThenView(hash)
	return a.TransactionByHash(v, hash, pooled), nil
}

// poolThenView returns transaction hash as the pool holds it (pre-confirmed endpoint only;
// nil: not pooled), then loads the view. A transaction leaves the pool only after the View
// that pre-confirms it is published (the sequencer removes it after Commit), so one of the
// two has it: reading the view first could miss it in both.
func (a *API) poolThenView(hash common.Hash) (*types.Transaction, preconf.View) {
	var pooled *types.Transaction
	if a.ShowsPreconfirmations() && a.Pool != nil {
		pooled = a.Pool.Get(hash)
	}
	return pooled, a.View()
}

// TransactionByHash answers eth_getTransactionByHash from v, or from pooled (the transaction
// as the pool held it just before v was loaded) when v does not have it.
func (a *API) TransactionByHash(v preconf.View, hash common.Hash, pooled *types.Transaction) json.RawMessage {
	if snap, i, ok := v.Preconfirmed(hash); ok {
		return a.PendingTxJSON(snap, i)
	}
	if tx, loc, ok := a.SealedTransaction(v, hash); ok {
		h := a.Chain.HeaderByHash(loc.BlockHash)
		if h == nil {
			return core.Null
		}
		return ethjson.AppendTransaction(nil, tx, a.SealedLocation(h, loc.Index, tx), a.ChainConfig)
	}
	if pooled != nil {
		return ethjson.AppendTransaction(nil, pooled, ethjson.TxLocation{}, a.ChainConfig)
	}
	return core.Null
}

// GetTransactionByBlockNumberAndIndex answers eth_getTransactionByBlockNumberAndIndex.
func (a *API) GetTransactionByBlockNumberAndIndex(ctx context.Context, v preconf.View, p rpc.Params) (any, error) {
	n, index, err := param.Two(p, param.DecodeBlockNumber, param.DecodeIndex)
	if err != nil {
		return nil, err
	}
	block, snap, err := a.BlockByNumber(v, n)
	if err != nil {
		return nil, err
	}
	return a.txInBlock(block, snap, index), nil
}

// GetTransactionByBlockHashAndIndex answers eth_getTransactionByBlockHashAndIndex.
func (a *API) GetTransactionByBlockHashAndIndex(ctx context.Context, v preconf.View, p rpc.Params) (any, error) {
	hash, index, err := param.Two(p, param.DecodeHash, param.DecodeIndex)
	if err != nil {
		return nil, err
	}
	block, snap := a.BlockByHash(v, hash)
	return a.txInBlock(block, snap, index), nil
}

// txInBlock answers transaction index of the block a lookup found: of snap (the block in
// progress, or the one being written) or of block; null when there is none.
func (a *API) txInBlock(block *types.Block, snap *preconf.Snapshot, index uint64) json.RawMessage {
	if b := blockOf(block, snap); b == nil || index >= uint64(len(b.Transactions())) {
		return core.Null
	}
	if snap != nil {
		return a.PendingTxJSON(snap, int(index))
	}
	tx := block.Transactions()[index]
	return ethjson.AppendTransaction(nil, tx, a.SealedLocation(block.Header(), index, tx), a.ChainConfig)
}

// GetTransactionReceipt answers eth_getTransactionReceipt.
func (a *API) GetTransactionReceipt(ctx context.Context, v preconf.View, p rpc.Params) (any, error) {
	hash, err := param.One(p, param.DecodeHash)
	if err != nil {
		return nil, err
	}
	if r := a.ReceiptJSON(v, hash); r != nil {
		return r, nil
	}
	return core.Null, nil
}

// GetBlockReceipts answers eth_getBlockReceipts.
func (a *API) GetBlockReceipts(ctx context.Context, v preconf.View, p rpc.Params) (any, error) {
	if err := param.CheckCount(p, 1); err != nil {
		return nil, err
	}
	b, err := param.DecodeBlockNumberOrHash(p, 0, true)
	if err != nil {
		return nil, err
	}
	h, snap, err := a.HeaderByNumberOrHash(v, b)
	if snap != nil {
		out := []byte{'['}
		for i := range snap.Receipts {
			if i > 0 {
				out = append(out, ',')
			}
			out = a.PendingReceiptJSON(out, snap, i)
		}
		return json.RawMessage(append(out, ']')), nil
	}
	if err != nil || h == nil {
		return core.Null, nil // geth answers null for unknown blocks here
	}
	block := a.Chain.BlockByHash(h.Hash())
	receipts := a.Chain.Receipts(h.Hash())
	if block == nil || len(receipts) != len(block.Transactions()) {
		return core.Null, nil
	}
	signer := types.MakeSigner(a.ChainConfig, h.Number, h.Time)
	ms := chain.BlockTimeMs(block)
	out := []byte{'['}
	for i, tx := range block.Transactions() {
		if i > 0 {
			out = append(out, ',')
		}
		out = ethjson.AppendReceiptMs(out, receipts[i], tx, block.Hash(), block.NumberU64(), signer, i, a.ChainConfig, ms)
	}
	return json.RawMessage(append(out, ']')), nil
}
