package api

import (
	"context"
	"encoding/json"
	"sync/atomic"

	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"
	gethrpc "github.com/ethereum/go-ethereum/rpc"

	"github.com/flashrpc/flashrpc/internal/ethjson"
	"github.com/flashrpc/flashrpc/internal/preconf"
	"github.com/flashrpc/flashrpc/internal/rpc"
)

// nullResult is the JSON-RPC result null, pre-encoded.
var nullResult = json.RawMessage(ethjson.Null)

// blockCache keeps the JSON of the two blocks asked for most, the sealed head and the block in
// progress, encoded once per change. Entries are immutable; a miss encodes and swaps in a new
// entry (two racing misses encode twice, harmlessly). Only the newest head and the newest
// pre-confirmation are stored: a request whose view is older (it began just before a seal or
// a pre-confirmation) is answered from its own view's block, encoded for it alone, and does
// not push the newer entry out.
type blockCache struct {
	head    atomic.Pointer[encodedBlock]
	pending atomic.Pointer[encodedBlock]
}

type encodedBlock struct {
	header *types.Header     // sealed head header (head entry): compared by pointer, no hashing
	block  *types.Block      // the sealed head (head entry)
	snap   *preconf.Snapshot // snapshot encoded (pending entry)
	hashes json.RawMessage   // fullTx == false
	full   atomic.Pointer[json.RawMessage]
}

// sealedBlockJSON returns the JSON of a sealed block, from the cache when it is the head's.
func (a *API) sealedBlockJSON(block *types.Block, fullTx bool) json.RawMessage {
	if e := a.blocks.head.Load(); e != nil && e.block.Hash() == block.Hash() {
		return e.get(fullTx, a.config, a.sealedBlockOptions)
	}
	return ethjson.AppendBlock(nil, block, fullTx, a.config, a.sealedBlockOptions(block, fullTx))
}

// headBlockJSON returns the JSON of h, the sealed head of the request's view.
func (a *API) headBlockJSON(h *types.Header, fullTx bool) json.RawMessage {
	e := a.blocks.head.Load()
	if e == nil || e.header != h {
		block := a.chain.BlockByHash(h.Hash())
		if block == nil {
			return nullResult
		}
		e = &encodedBlock{header: h, block: block, hashes: ethjson.AppendBlock(nil, block, false, a.config, ethjson.BlockOptions{})}
		if h == a.chain.Heads().Latest {
			a.blocks.head.Store(e)
		}
	}
	return e.get(fullTx, a.config, a.sealedBlockOptions)
}

// sealedBlockOptions returns the options of a sealed block's JSON: with full transactions,
// the receipts of a block with deposits (an OP Stack block), whose nonces they hold.
func (a *API) sealedBlockOptions(block *types.Block, fullTx bool) ethjson.BlockOptions {
	if txs := block.Transactions(); fullTx && len(txs) > 0 && txs[0].IsDepositTx() {
		return ethjson.BlockOptions{Receipts: a.chain.Receipts(block.Hash())}
	}
	return ethjson.BlockOptions{}
}

// pendingBlockJSON returns the JSON of the block in progress at snap's pre-confirmation.
func (a *API) pendingBlockJSON(snap *preconf.Snapshot, fullTx bool) json.RawMessage {
	opts := func(*types.Block, bool) ethjson.BlockOptions { return pendingBlockOptions(snap) }
	e := a.blocks.pending.Load()
	if e == nil || e.snap != snap {
		e = &encodedBlock{snap: snap, block: snap.Block, hashes: ethjson.AppendBlock(nil, snap.Block, false, a.config, opts(nil, false))}
		if snap == a.pre.Current() {
			a.blocks.pending.Store(e)
		}
	}
	return e.get(fullTx, a.config, opts)
}

// pendingBlockOptions returns the options of the JSON of the block in progress at snap: its
// partial hash, blockHash null in its transactions, and its receipts (a deposit's nonce).
func pendingBlockOptions(snap *preconf.Snapshot) ethjson.BlockOptions {
	hash := snap.Block.Hash()
	return ethjson.BlockOptions{Hash: &hash, InProgress: true, Receipts: snap.Receipts}
}

// get returns the entry's JSON, encoding the full-transaction form on first use with the
// options opts returns for the entry's block.
func (e *encodedBlock) get(fullTx bool, config *params.ChainConfig, opts func(*types.Block, bool) ethjson.BlockOptions) json.RawMessage {
	if !fullTx {
		return e.hashes
	}
	if full := e.full.Load(); full != nil {
		return *full
	}
	full := json.RawMessage(ethjson.AppendBlock(nil, e.block, true, config, opts(e.block, true)))
	e.full.Store(&full)
	return full
}

func (a *API) getBlockByNumber(ctx context.Context, v preconf.View, p rpc.Params) (any, error) {
	if err := checkCount(p, 2); err != nil {
		return nil, err
	}
	n, err := decodeBlockNumber(p, 0, 0, true)
	if err != nil {
		return nil, err
	}
	fullTx, err := decodeBool(p, 1)
	if err != nil {
		return nil, err
	}
	h, snap, err := a.headerByNumber(v, n)
	switch {
	case err != nil:
		return nil, err
	case snap != nil:
		return a.pendingBlockJSON(snap, fullTx), nil
	case h == nil:
		return nullResult, nil
	case h == v.Latest:
		return a.headBlockJSON(h, fullTx), nil // the hot path: no hashing, no reading
	}
	block := a.chain.BlockByHash(h.Hash())
	if block == nil {
		return nullResult, nil
	}
	return a.sealedBlockJSON(block, fullTx), nil
}

func (a *API) getBlockByHash(ctx context.Context, v preconf.View, p rpc.Params) (any, error) {
	if err := checkCount(p, 2); err != nil {
		return nil, err
	}
	hash, err := decodeHash(p, 0)
	if err != nil {
		return nil, err
	}
	fullTx, err := decodeBool(p, 1)
	if err != nil {
		return nil, err
	}
	if snap := v.SealingByHash(hash); snap != nil { // being written (view.go)
		return a.pendingBlockJSON(snap, fullTx), nil
	}
	block := a.chain.BlockByHash(hash)
	if block == nil {
		return nullResult, nil
	}
	return a.sealedBlockJSON(block, fullTx), nil
}

// blockByNumber resolves a block parameter against v to a sealed block, or the snapshot of the
// block in progress.
func (a *API) blockByNumber(v preconf.View, n gethrpc.BlockNumber) (*types.Block, *preconf.Snapshot, error) {
	h, snap, err := a.headerByNumber(v, n)
	if err != nil || snap != nil || h == nil {
		return nil, snap, err
	}
	return a.chain.BlockByHash(h.Hash()), nil, nil
}

func (a *API) getBlockTransactionCountByNumber(ctx context.Context, v preconf.View, p rpc.Params) (any, error) {
	return a.countByNumber(v, p, func(b *types.Block) int { return len(b.Transactions()) })
}

func (a *API) getBlockTransactionCountByHash(ctx context.Context, v preconf.View, p rpc.Params) (any, error) {
	return a.countByHash(v, p, func(b *types.Block) int { return len(b.Transactions()) })
}

func (a *API) getUncleCountByBlockNumber(ctx context.Context, v preconf.View, p rpc.Params) (any, error) {
	return a.countByNumber(v, p, func(b *types.Block) int { return len(b.Uncles()) })
}

func (a *API) getUncleCountByBlockHash(ctx context.Context, v preconf.View, p rpc.Params) (any, error) {
	return a.countByHash(v, p, func(b *types.Block) int { return len(b.Uncles()) })
}

// countByNumber answers the *CountByBlockNumber methods: count of the block a number or tag
// names, the block in progress included (it has no uncles); null when there is no such block.
func (a *API) countByNumber(v preconf.View, p rpc.Params, count func(*types.Block) int) (any, error) {
	if err := checkCount(p, 1); err != nil {
		return nil, err
	}
	n, err := decodeBlockNumber(p, 0, 0, true)
	if err != nil {
		return nil, err
	}
	block, snap, err := a.blockByNumber(v, n)
	if err != nil {
		return nil, err
	}
	if snap != nil {
		block = snap.Block
	}
	if block == nil {
		return nullResult, nil
	}
	return quantity(uint64(count(block))), nil
}

// countByHash answers the *CountByBlockHash methods; null for an unknown hash.
func (a *API) countByHash(v preconf.View, p rpc.Params, count func(*types.Block) int) (any, error) {
	if err := checkCount(p, 1); err != nil {
		return nil, err
	}
	hash, err := decodeHash(p, 0)
	if err != nil {
		return nil, err
	}
	if snap := v.SealingByHash(hash); snap != nil { // being written (view.go)
		return quantity(uint64(count(snap.Block))), nil
	}
	block := a.chain.BlockByHash(hash)
	if block == nil {
		return nullResult, nil
	}
	return quantity(uint64(count(block))), nil
}

// quantity returns v as a pre-encoded JSON hex quantity.
func quantity(v uint64) json.RawMessage {
	return ethjson.AppendQuantity(make([]byte, 0, 20), v)
}
