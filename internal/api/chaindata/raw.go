package chaindata

import (
	"context"
	"encoding/json"

	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/rlp"
	gethrpc "github.com/ethereum/go-ethereum/rpc"

	"github.com/flashrpc/flashrpc/internal/api/core"
	"github.com/flashrpc/flashrpc/internal/api/param"
	"github.com/flashrpc/flashrpc/internal/ethjson"
	"github.com/flashrpc/flashrpc/internal/preconf"
	"github.com/flashrpc/flashrpc/internal/rpc"
)

// Raw data, in the consensus encodings: debug_getRawHeader and debug_getRawBlock (RLP),
// debug_getRawReceipts (each receipt's EIP-2718 encoding, as in the receipts trie),
// debug_getRawTransaction and eth_getRawTransactionBy* (the transaction's EIP-2718 encoding,
// what eth_sendRawTransaction takes). As in go-ethereum, a block number or tag that names no
// block answers "0x" (debug_getRawReceipts null) and an unknown block hash an error; an
// unknown transaction answers "0x".
// On the pre-confirmed endpoint `pending` is the block in progress (its partial header, the
// transactions and receipts pre-confirmed so far) and pre-confirmed transactions are found.

// emptyRaw is go-ethereum's answer for raw data that does not exist: empty bytes.
var emptyRaw = json.RawMessage(`"0x"`)

// rawBlock resolves a block parameter of the raw methods against v: a sealed block, or the
// block in progress. Both nil means a number or tag without a block.
func (a *API) rawBlock(v preconf.View, b gethrpc.BlockNumberOrHash) (*types.Block, *preconf.Snapshot, error) {
	if hash, ok := b.Hash(); ok {
		if snap := v.SealingByHash(hash); snap != nil { // being written (core's view.go)
			return nil, snap, nil
		}
		block := a.Chain.BlockByHash(hash)
		if block == nil {
			return nil, nil, core.ErrRawBlockNotFound(hash)
		}
		return block, nil, nil
	}
	h, snap, err := a.HeaderByNumberOrHash(v, b)
	if err != nil || snap != nil || h == nil {
		return nil, snap, err
	}
	return a.Chain.BlockByHash(h.Hash()), nil, nil
}

// rawBlockParam decodes the one block parameter of the raw block methods.
func rawBlockParam(p rpc.Params) (gethrpc.BlockNumberOrHash, error) {
	if err := param.CheckCount(p, 1); err != nil {
		return gethrpc.BlockNumberOrHash{}, err
	}
	return param.DecodeBlockNumberOrHash(p, 0, true)
}

// GetRawHeader answers debug_getRawHeader.
func (a *API) GetRawHeader(ctx context.Context, v preconf.View, p rpc.Params) (any, error) {
	b, err := rawBlockParam(p)
	if err != nil {
		return nil, err
	}
	block, snap, err := a.rawBlock(v, b)
	switch {
	case err != nil:
		return nil, err
	case snap != nil:
		return rawRLP(snap.Block.Header())
	case block == nil:
		return emptyRaw, nil
	}
	return rawRLP(block.Header())
}

// GetRawBlock answers debug_getRawBlock.
func (a *API) GetRawBlock(ctx context.Context, v preconf.View, p rpc.Params) (any, error) {
	b, err := rawBlockParam(p)
	if err != nil {
		return nil, err
	}
	block, snap, err := a.rawBlock(v, b)
	switch {
	case err != nil:
		return nil, err
	case snap != nil:
		return rawRLP(snap.Block)
	case block == nil:
		return emptyRaw, nil
	}
	return rawRLP(block)
}

// GetRawReceipts answers debug_getRawReceipts.
func (a *API) GetRawReceipts(ctx context.Context, v preconf.View, p rpc.Params) (any, error) {
	b, err := rawBlockParam(p)
	if err != nil {
		return nil, err
	}
	block, snap, err := a.rawBlock(v, b)
	var receipts types.Receipts
	switch {
	case err != nil:
		return nil, err
	case snap != nil:
		receipts = snap.Receipts
	case block == nil:
		return core.Null, nil
	default:
		receipts = a.Chain.Receipts(block.Hash())
	}
	out := []byte{'['}
	for i, r := range receipts {
		enc, err := r.MarshalBinary()
		if err != nil {
			return nil, err
		}
		if i > 0 {
			out = append(out, ',')
		}
		out = ethjson.AppendHexBytes(out, enc)
	}
	return json.RawMessage(append(out, ']')), nil
}

// GetRawTransaction answers debug_getRawTransaction and eth_getRawTransactionByHash: like
// eth_getTransactionByHash it reads the pool (pre-confirmed endpoint) before the view.
func (a *API) GetRawTransaction(ctx context.Context, p rpc.Params) (any, error) {
	if err := param.CheckCount(p, 1); err != nil {
		return nil, err
	}
	hash, err := param.DecodeHash(p, 0)
	if err != nil {
		return nil, err
	}
	var pooled *types.Transaction
	if a.ShowsPreconfirmations() && a.Pool != nil {
		pooled = a.Pool.Get(hash)
	}
	v := a.View()
	if snap, i, ok := v.Preconfirmed(hash); ok {
		return rawTx(snap.Block.Transactions()[i])
	}
	if tx, _, ok := a.SealedTransaction(v, hash); ok {
		return rawTx(tx)
	}
	if pooled != nil {
		return rawTx(pooled)
	}
	return emptyRaw, nil
}

// GetRawTransactionByBlockNumberAndIndex answers eth_getRawTransactionByBlockNumberAndIndex.
func (a *API) GetRawTransactionByBlockNumberAndIndex(ctx context.Context, v preconf.View, p rpc.Params) (any, error) {
	if err := param.CheckCount(p, 2); err != nil {
		return nil, err
	}
	n, err := param.DecodeBlockNumber(p, 0, 0, true)
	if err != nil {
		return nil, err
	}
	index, err := param.DecodeIndex(p, 1)
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
	return rawTxInBlock(block, index)
}

// GetRawTransactionByBlockHashAndIndex answers eth_getRawTransactionByBlockHashAndIndex.
func (a *API) GetRawTransactionByBlockHashAndIndex(ctx context.Context, v preconf.View, p rpc.Params) (any, error) {
	if err := param.CheckCount(p, 2); err != nil {
		return nil, err
	}
	hash, err := param.DecodeHash(p, 0)
	if err != nil {
		return nil, err
	}
	index, err := param.DecodeIndex(p, 1)
	if err != nil {
		return nil, err
	}
	if snap := v.SealingByHash(hash); snap != nil { // being written (core's view.go)
		return rawTxInBlock(snap.Block, index)
	}
	return rawTxInBlock(a.Chain.BlockByHash(hash), index)
}

func rawTxInBlock(block *types.Block, index uint64) (any, error) {
	if block == nil || index >= uint64(len(block.Transactions())) {
		return emptyRaw, nil
	}
	return rawTx(block.Transactions()[index])
}

func rawTx(tx *types.Transaction) (any, error) {
	enc, err := tx.MarshalBinary()
	if err != nil {
		return nil, err
	}
	return json.RawMessage(ethjson.AppendHexBytes(nil, enc)), nil
}

func rawRLP(v any) (any, error) {
	enc, err := rlp.EncodeToBytes(v)
	if err != nil {
		return nil, err
	}
	return json.RawMessage(ethjson.AppendHexBytes(nil, enc)), nil
}
