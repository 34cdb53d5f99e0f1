package api

import (
	"context"
	"encoding/json"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/flashrpc/flashrpc/internal/chain"
	"github.com/flashrpc/flashrpc/internal/ethjson"
	"github.com/flashrpc/flashrpc/internal/preconf"
	"github.com/flashrpc/flashrpc/internal/rpc"
)

// Transactions and receipts are looked up in the request's view (view.go): in the block in
// progress (pre-confirmed endpoint only), then among the blocks sealed up to the view's head,
// then (transactions only, pre-confirmed endpoint only) in the pool. The standard endpoint
// shows sealed data only: a pre-confirmed transaction appears there when its block is sealed.

// getTransactionByHash reads the pool before it loads the view. A transaction leaves the pool
// only after the View that pre-confirms it is published (the sequencer removes it after
// Commit), so one of the two has it: reading the view first could miss it in both.
func (a *API) getTransactionByHash(ctx context.Context, p rpc.Params) (any, error) {
	if err := checkCount(p, 1); err != nil {
		return nil, err
	}
	hash, err := decodeHash(p, 0)
	if err != nil {
		return nil, err
	}
	var pooled *types.Transaction
	if a.cfg.Pending && a.pool != nil {
		pooled = a.pool.Get(hash)
	}
	return a.transactionByHash(a.view(), hash, pooled), nil
}

// transactionByHash answers eth_getTransactionByHash from v, or from pooled (the transaction
// as the pool held it just before v was loaded) when v does not have it.
func (a *API) transactionByHash(v preconf.View, hash common.Hash, pooled *types.Transaction) json.RawMessage {
	if snap, i, ok := v.Preconfirmed(hash); ok {
		return pendingTxJSON(snap, i, a)
	}
	if tx, loc, ok := a.sealedTransaction(v, hash); ok {
		h := a.chain.HeaderByHash(loc.BlockHash)
		if h == nil {
			return nullResult
		}
		return ethjson.AppendTransaction(nil, tx, a.sealedLocation(h, loc.Index, tx), a.config)
	}
	if pooled != nil {
		return ethjson.AppendTransaction(nil, pooled, ethjson.TxLocation{}, a.config)
	}
	return nullResult
}

// sealedTransaction returns a transaction sealed in a canonical block up to v's head.
func (a *API) sealedTransaction(v preconf.View, hash common.Hash) (*types.Transaction, chain.TxLocation, bool) {
	tx, loc, ok := a.chain.Transaction(hash)
	if !ok || loc.BlockNumber > v.Latest.Number.Uint64() {
		return nil, chain.TxLocation{}, false
	}
	return tx, loc, true
}

// sealedLocation locates tx, transaction index of the sealed block with header h. A deposit
// needs its receipt (its nonce is the receipt's depositNonce).
func (a *API) sealedLocation(h *types.Header, index uint64, tx *types.Transaction) ethjson.TxLocation {
	hash := h.Hash()
	loc := ethjson.TxLocation{Located: true, BlockHash: &hash, BlockNumber: h.Number.Uint64(), BlockTime: h.Time, Index: index, BaseFee: h.BaseFee}
	if tx.IsDepositTx() {
		if receipts := a.chain.Receipts(hash); index < uint64(len(receipts)) {
			loc.Receipt = receipts[index]
		}
	}
	return loc
}

// pendingTxJSON encodes transaction i of the block in progress: blockHash null, the rest set.
func pendingTxJSON(snap *preconf.Snapshot, i int, a *API) json.RawMessage {
	h := snap.Block.Header()
	loc := ethjson.TxLocation{Located: true, BlockNumber: h.Number.Uint64(), BlockTime: h.Time, Index: uint64(i), BaseFee: h.BaseFee, Receipt: snap.Receipts[i]}
	return ethjson.AppendTransaction(nil, snap.Block.Transactions()[i], loc, a.config)
}

func (a *API) getTransactionByBlockNumberAndIndex(ctx context.Context, v preconf.View, p rpc.Params) (any, error) {
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
	block, snap, err := a.blockByNumber(v, n)
	if err != nil {
		return nil, err
	}
	if snap != nil {
		if index >= uint64(len(snap.Block.Transactions())) {
			return nullResult, nil
		}
		return pendingTxJSON(snap, int(index), a), nil
	}
	return a.txInBlock(block, index), nil
}

func (a *API) getTransactionByBlockHashAndIndex(ctx context.Context, v preconf.View, p rpc.Params) (any, error) {
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
	if snap := v.SealingByHash(hash); snap != nil { // being written (view.go)
		if index >= uint64(len(snap.Block.Transactions())) {
			return nullResult, nil
		}
		return pendingTxJSON(snap, int(index), a), nil
	}
	return a.txInBlock(a.chain.BlockByHash(hash), index), nil
}

func (a *API) txInBlock(block *types.Block, index uint64) json.RawMessage {
	if block == nil || index >= uint64(len(block.Transactions())) {
		return nullResult
	}
	tx := block.Transactions()[index]
	return ethjson.AppendTransaction(nil, tx, a.sealedLocation(block.Header(), index, tx), a.config)
}

func (a *API) getTransactionReceipt(ctx context.Context, v preconf.View, p rpc.Params) (any, error) {
	if err := checkCount(p, 1); err != nil {
		return nil, err
	}
	hash, err := decodeHash(p, 0)
	if err != nil {
		return nil, err
	}
	if r := a.receiptJSON(v, hash); r != nil {
		return r, nil
	}
	return nullResult, nil
}

// receiptJSON returns the receipt v shows for hash (pre-confirmed, on the pre-confirmed
// endpoint, or sealed up to v's head), or nil.
func (a *API) receiptJSON(v preconf.View, hash common.Hash) json.RawMessage {
	if snap, i, ok := v.Preconfirmed(hash); ok {
		return pendingReceiptJSON(nil, snap, i, a)
	}
	tx, loc, ok := a.sealedTransaction(v, hash)
	if !ok {
		return nil
	}
	receipts := a.chain.Receipts(loc.BlockHash)
	h := a.chain.HeaderByHash(loc.BlockHash)
	if h == nil || loc.Index >= uint64(len(receipts)) {
		return nil
	}
	signer := types.MakeSigner(a.config, h.Number, h.Time)
	return ethjson.AppendReceipt(nil, receipts[loc.Index], tx, loc.BlockHash, loc.BlockNumber, signer, int(loc.Index), a.config)
}

// pendingReceiptJSON appends receipt i of the block in progress: blockHash is the zero hash.
func pendingReceiptJSON(dst []byte, snap *preconf.Snapshot, i int, a *API) []byte {
	h := snap.Block.Header()
	signer := types.MakeSigner(a.config, h.Number, h.Time)
	return ethjson.AppendReceipt(dst, snap.Receipts[i], snap.Block.Transactions()[i], common.Hash{}, h.Number.Uint64(), signer, i, a.config)
}

func (a *API) getBlockReceipts(ctx context.Context, v preconf.View, p rpc.Params) (any, error) {
	if err := checkCount(p, 1); err != nil {
		return nil, err
	}
	b, err := decodeBlockNumberOrHash(p, 0, true)
	if err != nil {
		return nil, err
	}
	h, snap, err := a.headerByNumberOrHash(v, b)
	if snap != nil {
		out := []byte{'['}
		for i := range snap.Receipts {
			if i > 0 {
				out = append(out, ',')
			}
			out = pendingReceiptJSON(out, snap, i, a)
		}
		return json.RawMessage(append(out, ']')), nil
	}
	if err != nil || h == nil {
		return nullResult, nil // geth answers null for unknown blocks here
	}
	block := a.chain.BlockByHash(h.Hash())
	receipts := a.chain.Receipts(h.Hash())
	if block == nil || len(receipts) != len(block.Transactions()) {
		return nullResult, nil
	}
	signer := types.MakeSigner(a.config, h.Number, h.Time)
	out := []byte{'['}
	for i, tx := range block.Transactions() {
		if i > 0 {
			out = append(out, ',')
		}
		out = ethjson.AppendReceipt(out, receipts[i], tx, block.Hash(), block.NumberU64(), signer, i, a.config)
	}
	return json.RawMessage(append(out, ']')), nil
}
