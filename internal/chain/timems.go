package chain

import (
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/flashrpc/flashrpc/internal/oprollup"
)

// TimeMs returns the time in milliseconds of the sealed block with header h when it is a
// Denim block, nil otherwise: 1000 × timestamp + the part its BaseTime deposit (transaction
// 1) sets (oprollup.BlockTimeMs). Blocks before Denim and blocks whose body the chain does
// not hold (a fork's upstream blocks) have none. The RPC writes it as timestampMs and blockTimestampMs.
func (c *Chain) TimeMs(h *types.Header) *uint64 {
	if h == nil {
		return nil
	}
	return c.TimeMsOf(h.Hash(), h.Time)
}

// TimeMsOf is TimeMs for the block with hash and timestamp time (a log's BlockHash and
// BlockTimestamp). Only a chain opened with a Denim time (Config.Denim) has Denim blocks: on
// any other, and for a block before the activation, it returns nil without reading the block.
func (c *Chain) TimeMsOf(hash common.Hash, time uint64) *uint64 {
	if !oprollup.IsDenim(c.denim, time) {
		return nil
	}
	body := c.bc.GetBody(hash)
	if body == nil {
		return nil
	}
	return timeMs(time, body.Transactions)
}

// BlockTimeMs is TimeMs for a sealed block at hand.
func BlockTimeMs(b *types.Block) *uint64 { return timeMs(b.Time(), b.Transactions()) }

func timeMs(time uint64, txs types.Transactions) *uint64 {
	if ms, ok := oprollup.BlockTimeMs(time, txs); ok {
		return &ms
	}
	return nil
}
