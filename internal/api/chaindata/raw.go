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
		block, snap := a.BlockByHash(v, hash)
		if block == nil && snap == nil {
			return nil, nil, core.ErrRawBlockNotFound(hash)
		}
		return block, snap, nil
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
	return a.rawBlockRLP(v, p, func(b *types.Block) any { return b.Header() })
}

// GetRawBlock answers debug_getRawBlock.
func (a *API) GetRawBlock(ctx context.Context, v preconf.View, p rpc.Params) (any, error) {
	return a.rawBlockRLP(v, p, func(b *types.Block) any { return b })
}

// rawBlockRLP answers the RLP of part of the block parameter p names (its header, or the
// block): of the block in progress or being written, or of a sealed block.
func (a *API) rawBlockRLP(v preconf.View, p rpc.Params, part func(*types.Block) any) (any, error) {
	b, err := rawBlockParam(p)
	if err != nil {
		return nil, err
	}
	block, snap, err := a.rawBlock(v, b)
	if err != nil {
		return nil, err
	}
	if block = blockOf(block, snap); block == nil {
		return emptyRaw, nil
	}
	return rawRLP(part(block))
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
// eth_getTransactionByHash it reads the pool (pre-confirmed endpoint) before the view
// (poolThenView).
func (a *API) GetRawTransaction(ctx context.Context, p rpc.Params) (any, error) {
	hash, err := param.One(p, param.DecodeHash)
	if err != nil {
		return nil, err
	}
	pooled, v := a.poolThenView(hash)
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
	n, index, err := param.Two(p, param.DecodeBlockNumber, param.DecodeIndex)
	if err != nil {
		return nil, err
	}
	block, snap, err := a.BlockByNumber(v, n)
	if err != nil {
		return nil, err
	}
	return rawTxInBlock(blockOf(block, snap), index)
}

// GetRawTransactionByBlockHashAndIndex answers eth_getRawTransactionByBlockHashAndIndex.
func (a *API) GetRawTransactionByBlockHashAndIndex(ctx context.Context, v preconf.View, p rpc.Params) (any, error) {
	hash, index, err := param.Two(p, param.DecodeHash, param.DecodeIndex)
	if err != nil {
		return nil, err
	}
	return rawTxInBlock(blockOf(a.BlockByHash(v, hash)), index)
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
