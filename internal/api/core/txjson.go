package core

import (
	"encoding/json"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/flashrpc/flashrpc/internal/chain"
	"github.com/flashrpc/flashrpc/internal/ethjson"
	"github.com/flashrpc/flashrpc/internal/preconf"
)

// Transactions and receipts as the request's view shows them: sealed up to its head, or
// pre-confirmed in the block in progress (blockHash null in a transaction, the zero hash in a
// receipt), encoded by internal/ethjson for the read methods and the streams alike.

// SealedTransaction returns a transaction sealed in a canonical block up to v's head.
func (c *Core) SealedTransaction(v preconf.View, hash common.Hash) (*types.Transaction, chain.TxLocation, bool) {
	tx, loc, ok := c.Chain.Transaction(hash)
	if !ok || loc.BlockNumber > v.Latest.Number.Uint64() {
		return nil, chain.TxLocation{}, false
	}
	return tx, loc, true
}

// SealedLocation locates tx, transaction index of the sealed block with header h. A deposit
// needs its receipt (its nonce is the receipt's depositNonce).
func (c *Core) SealedLocation(h *types.Header, index uint64, tx *types.Transaction) ethjson.TxLocation {
	hash := h.Hash()
	loc := ethjson.TxLocation{Located: true, BlockHash: &hash, BlockNumber: h.Number.Uint64(), BlockTime: h.Time, Index: index, BaseFee: h.BaseFee, TimeMs: c.Chain.TimeMsOf(hash, h.Time)}
	if tx.IsDepositTx() {
		if receipts := c.Chain.Receipts(hash); index < uint64(len(receipts)) {
			loc.Receipt = receipts[index]
		}
	}
	return loc
}

// PendingTxJSON encodes transaction i of the block in progress: blockHash null, the rest set.
func (c *Core) PendingTxJSON(snap *preconf.Snapshot, i int) json.RawMessage {
	h := snap.Block.Header()
	loc := ethjson.TxLocation{Located: true, BlockNumber: h.Number.Uint64(), BlockTime: h.Time, Index: uint64(i), BaseFee: h.BaseFee, Receipt: snap.Receipts[i]}
	return ethjson.AppendTransaction(nil, snap.Block.Transactions()[i], loc, c.ChainConfig)
}

// ReceiptJSON returns the receipt v shows for hash (pre-confirmed, on the pre-confirmed
// endpoint, or sealed up to v's head), or nil.
func (c *Core) ReceiptJSON(v preconf.View, hash common.Hash) json.RawMessage {
	if snap, i, ok := v.Preconfirmed(hash); ok {
		return c.PendingReceiptJSON(nil, snap, i)
	}
	tx, loc, ok := c.SealedTransaction(v, hash)
	if !ok {
		return nil
	}
	receipts := c.Chain.Receipts(loc.BlockHash)
	h := c.Chain.HeaderByHash(loc.BlockHash)
	if h == nil || loc.Index >= uint64(len(receipts)) {
		return nil
	}
	signer := types.MakeSigner(c.ChainConfig, h.Number, h.Time)
	return ethjson.AppendReceiptMs(nil, receipts[loc.Index], tx, loc.BlockHash, loc.BlockNumber, signer, int(loc.Index), c.ChainConfig, c.Chain.TimeMsOf(loc.BlockHash, h.Time))
}

// PendingReceiptJSON appends receipt i of the block in progress: blockHash is the zero hash.
func (c *Core) PendingReceiptJSON(dst []byte, snap *preconf.Snapshot, i int) []byte {
	h := snap.Block.Header()
	signer := types.MakeSigner(c.ChainConfig, h.Number, h.Time)
	return ethjson.AppendReceipt(dst, snap.Receipts[i], snap.Block.Transactions()[i], common.Hash{}, h.Number.Uint64(), signer, i, c.ChainConfig)
}
