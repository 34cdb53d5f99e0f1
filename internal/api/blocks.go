package api

import (
	"context"
	"encoding/json"
	"sync/atomic"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	gethrpc "github.com/ethereum/go-ethereum/rpc"
	"github.com/flashrpc/flashrpc/internal/ethjson"
	"github.com/flashrpc/flashrpc/internal/preconf"
	"github.com/flashrpc/flashrpc/internal/rpc"
)

// nullResult is the JSON-RPC result null, pre-encoded.
var nullResult = json.RawMessage(ethjson.Null)

// blockCache keeps the JSON of the two blocks asked for most, the sealed head and the block in
// progress, encoded once per change. Entries are immutable; a miss encodes and swaps in a new
// entry (two racing misses encode twice, harmlessly).
type blockCache struct {
	head    atomic.Pointer[encodedBlock]
	pending atomic.Pointer[encodedBlock]
}

type encodedBlock struct {
	header *types.Header     // sealed head header (head entry): compared by pointer, no hashing
	hash   common.Hash       // sealed block's hash (head entry)
	snap   *preconf.Snapshot // snapshot encoded (pending entry)
	hashes json.RawMessage   // fullTx == false
	full   atomic.Pointer[json.RawMessage]
}

// blockJSON returns the JSON of a sealed block, from the cache when it is the head.
func (a *API) blockJSON(block *types.Block, fullTx bool) json.RawMessage {
	if block.Hash() != a.chain.Head().Hash() {
		return ethjson.AppendBlock(nil, block, fullTx, a.config, a.sealedBlockOptions(block, fullTx))
	}
	e := a.blocks.head.Load()
	if e == nil || e.hash != block.Hash() {
		e = &encodedBlock{header: a.chain.Head(), hash: block.Hash(), hashes: ethjson.AppendBlock(nil, block, false, a.config, ethjson.BlockOptions{})}
		if e.header.Hash() != e.hash { // the head moved meanwhile: key by hash only
			e.header = nil
		}
		a.blocks.head.Store(e)
	}
	return e.get(fullTx, func() json.RawMessage {
		return ethjson.AppendBlock(nil, block, true, a.config, a.sealedBlockOptions(block, true))
	})
}

// pendingBlockJSON returns the JSON of the block in progress at snap's pre-confirmation.
func (a *API) pendingBlockJSON(snap *preconf.Snapshot, fullTx bool) json.RawMessage {
	e := a.blocks.pending.Load()
	opts := func() ethjson.BlockOptions {
		hash := snap.Block.Hash()
		return ethjson.BlockOptions{Hash: &hash, InProgress: true, Receipts: snap.Receipts}
	}
	if e == nil || e.snap != snap {
		e = &encodedBlock{snap: snap, hashes: ethjson.AppendBlock(nil, snap.Block, false, a.config, opts())}
		a.blocks.pending.Store(e)
	}
	return e.get(fullTx, func() json.RawMessage { return ethjson.AppendBlock(nil, snap.Block, true, a.config, opts()) })
}

// sealedBlockOptions returns the options of a sealed block's JSON: with full transactions,
// the receipts of a block with deposits (an OP Stack block), whose nonces they hold.
func (a *API) sealedBlockOptions(block *types.Block, fullTx bool) ethjson.BlockOptions {
	if txs := block.Transactions(); fullTx && len(txs) > 0 && txs[0].IsDepositTx() {
		return ethjson.BlockOptions{Receipts: a.chain.Receipts(block.Hash())}
	}
	return ethjson.BlockOptions{}
}

func (e *encodedBlock) get(fullTx bool, encodeFull func() json.RawMessage) json.RawMessage {
	if !fullTx {
		return e.hashes
	}
	if full := e.full.Load(); full != nil {
		return *full
	}
	full := encodeFull()
	e.full.Store(&full)
	return full
}

func (a *API) getBlockByNumber(ctx context.Context, p rpc.Params) (any, error) {
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
	h, snap, err := a.headerByNumber(n)
	if err != nil {
		return nil, err
	}
	if snap != nil {
		return a.pendingBlockJSON(snap, fullTx), nil
	}
	if h == nil {
		return nullResult, nil
	}
	if head := a.blocks.head.Load(); head != nil && head.header == h && !fullTx {
		return head.hashes, nil // the hot path: latest, without hashing or reading the block
	}
	block := a.chain.BlockByHash(h.Hash())
	if block == nil {
		return nullResult, nil
	}
	return a.blockJSON(block, fullTx), nil
}

func (a *API) getBlockByHash(ctx context.Context, p rpc.Params) (any, error) {
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
	block := a.chain.BlockByHash(hash)
	if block == nil {
		return nullResult, nil
	}
	return a.blockJSON(block, fullTx), nil
}

// blockByNumber resolves a block parameter to a sealed block, or the snapshot of the block in
// progress.
func (a *API) blockByNumber(n gethrpc.BlockNumber) (*types.Block, *preconf.Snapshot, error) {
	h, snap, err := a.headerByNumber(n)
	if err != nil || snap != nil || h == nil {
		return nil, snap, err
	}
	return a.chain.BlockByHash(h.Hash()), nil, nil
}

func (a *API) getBlockTransactionCountByNumber(ctx context.Context, p rpc.Params) (any, error) {
	return a.countByNumber(p, func(b *types.Block) int { return len(b.Transactions()) })
}

func (a *API) getBlockTransactionCountByHash(ctx context.Context, p rpc.Params) (any, error) {
	return a.countByHash(p, func(b *types.Block) int { return len(b.Transactions()) })
}

func (a *API) getUncleCountByBlockNumber(ctx context.Context, p rpc.Params) (any, error) {
	return a.countByNumber(p, func(b *types.Block) int { return len(b.Uncles()) })
}

func (a *API) getUncleCountByBlockHash(ctx context.Context, p rpc.Params) (any, error) {
	return a.countByHash(p, func(b *types.Block) int { return len(b.Uncles()) })
}

// countByNumber answers the *CountByBlockNumber methods: count of the block a number or tag
// names, the block in progress included (it has no uncles); null when there is no such block.
func (a *API) countByNumber(p rpc.Params, count func(*types.Block) int) (any, error) {
	if err := checkCount(p, 1); err != nil {
		return nil, err
	}
	n, err := decodeBlockNumber(p, 0, 0, true)
	if err != nil {
		return nil, err
	}
	block, snap, err := a.blockByNumber(n)
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
func (a *API) countByHash(p rpc.Params, count func(*types.Block) int) (any, error) {
	if err := checkCount(p, 1); err != nil {
		return nil, err
	}
	hash, err := decodeHash(p, 0)
	if err != nil {
		return nil, err
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
