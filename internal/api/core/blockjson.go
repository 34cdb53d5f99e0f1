package core

import (
	"encoding/json"
	"sync/atomic"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"

	"github.com/flashrpc/flashrpc/internal/chain"
	"github.com/flashrpc/flashrpc/internal/ethjson"
	"github.com/flashrpc/flashrpc/internal/preconf"
)

// The pre-encoded JSON the concerns answer with: the sealed head and the block in progress,
// encoded once per change (blockCache), and the small values (Null, Quantity, JSON32).

// Null is the JSON-RPC result null, pre-encoded.
var Null = json.RawMessage(ethjson.Null)

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

// SealedBlockJSON returns the JSON of a sealed block, from the cache when it is the head's.
func (c *Core) SealedBlockJSON(block *types.Block, fullTx bool) json.RawMessage {
	if e := c.blocks.head.Load(); e != nil && e.block.Hash() == block.Hash() {
		return e.get(fullTx, c.ChainConfig, c.SealedBlockOptions)
	}
	return ethjson.AppendBlock(nil, block, fullTx, c.ChainConfig, c.SealedBlockOptions(block, fullTx))
}

// HeadBlockJSON returns the JSON of h, the sealed head of the request's view.
func (c *Core) HeadBlockJSON(h *types.Header, fullTx bool) json.RawMessage {
	e := c.blocks.head.Load()
	if e == nil || e.header != h {
		block := c.Chain.BlockByHash(h.Hash())
		if block == nil {
			return Null
		}
		e = &encodedBlock{header: h, block: block, hashes: ethjson.AppendBlock(nil, block, false, c.ChainConfig, c.SealedBlockOptions(block, false))}
		if h == c.Chain.Heads().Latest {
			c.blocks.head.Store(e)
		}
	}
	return e.get(fullTx, c.ChainConfig, c.SealedBlockOptions)
}

// SealedBlockOptions returns the options of a sealed block's JSON: a Denim block's time in
// milliseconds (timestampMs, blockTimestampMs) and, with full transactions, the receipts of a
// block with deposits (an OP Stack block), whose nonces they hold.
func (c *Core) SealedBlockOptions(block *types.Block, fullTx bool) ethjson.BlockOptions {
	opts := ethjson.BlockOptions{TimeMs: chain.BlockTimeMs(block)}
	if txs := block.Transactions(); fullTx && len(txs) > 0 && txs[0].IsDepositTx() {
		opts.Receipts = c.Chain.Receipts(block.Hash())
	}
	return opts
}

// PendingBlockJSON returns the JSON of the block in progress at snap's pre-confirmation.
func (c *Core) PendingBlockJSON(snap *preconf.Snapshot, fullTx bool) json.RawMessage {
	opts := func(*types.Block, bool) ethjson.BlockOptions { return PendingBlockOptions(snap) }
	e := c.blocks.pending.Load()
	if e == nil || e.snap != snap {
		e = &encodedBlock{snap: snap, block: snap.Block, hashes: ethjson.AppendBlock(nil, snap.Block, false, c.ChainConfig, opts(nil, false))}
		if snap == c.Pre.Current() {
			c.blocks.pending.Store(e)
		}
	}
	return e.get(fullTx, c.ChainConfig, opts)
}

// PendingBlockOptions returns the options of the JSON of the block in progress at snap: its
// partial hash, blockHash null in its transactions, and its receipts (a deposit's nonce).
func PendingBlockOptions(snap *preconf.Snapshot) ethjson.BlockOptions {
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

// Quantity returns v as a pre-encoded JSON hex quantity.
func Quantity(v uint64) json.RawMessage {
	return ethjson.AppendQuantity(make([]byte, 0, 20), v)
}

// JSON32 returns a 32-byte value as pre-encoded JSON.
func JSON32(h common.Hash) json.RawMessage { return ethjson.AppendHash(nil, h) }
