package core

import (
	"encoding/json"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/consensus/misc/eip1559"
	"github.com/ethereum/go-ethereum/consensus/misc/eip4844"
	"github.com/ethereum/go-ethereum/core/types"
	gethrpc "github.com/ethereum/go-ethereum/rpc"

	"github.com/flashrpc/flashrpc/internal/ethjson"
	"github.com/flashrpc/flashrpc/internal/oprollup"
	"github.com/flashrpc/flashrpc/internal/preconf"
)

// The next block as forecast (decisions.md, "Endpoints and networks"). Where a view carries
// no block in progress — the standard endpoint's views, and any view of a chain without
// pre-confirmations — `pending` is the block after the sealed head as it is expected to
// land: Latest's state, in the context of the next block (number Latest+1, parent Latest,
// its timestamp with any evm_setNextBlockTimestamp or evm_increaseTime, its base fee, fee
// recipient, prevrandao and gas limit), with no transactions. eth_call, eth_estimateGas and
// debug_traceCall at `pending` run in that context, so time- or number-dependent code is
// estimated for the block a transaction lands in; eth_getBlockByNumber and
// eth_getHeaderByNumber answer its header; state reads at `pending` read Latest's state.
// What decides is the view (View.Forecast, set where no block in progress is shown), not the
// endpoint's name: serve mode, which has no pre-confirmations, forecasts on both endpoints,
// and so does a chain without pre-confirmations (preconf's View.Hidden). The pre-confirmed
// endpoint of a chain with pre-confirmations keeps its `pending`: the block in progress, or
// the sealed head until the next one opens.
//
// The context comes from View.Next, the block the writer builds on Latest, when the view
// knows it (the dev chain and a replica with a feed); otherwise it is made from Latest alone
// (nextHeader): one second later (after a Denim block, the next 200 ms slot), the protocol's
// base fee, Latest's gas limit and fee recipient.

// IsForecast reports whether b names `pending` on a view whose `pending` is the next block as
// forecast (Forecast).
func IsForecast(v preconf.View, b gethrpc.BlockNumberOrHash) bool {
	n, ok := b.Number()
	return ok && IsForecastNumber(v, n)
}

// IsForecastNumber is IsForecast for a block number or tag.
func IsForecastNumber(v preconf.View, n gethrpc.BlockNumber) bool {
	return n == gethrpc.PendingBlockNumber && v.Forecast && v.Pending == nil
}

// Forecast returns the header of the next block as forecast on v: a new header the caller
// owns, with number Latest+1, parent Latest, Latest's state root, no transactions and no
// gas used.
func (c *Core) Forecast(v preconf.View) *types.Header {
	head := v.Latest
	var h *types.Header
	if next := v.Next; next != nil && next.Number() == head.Number.Uint64()+1 && next.Block.ParentHash() == head.Hash() {
		h = next.Header() // a copy
	} else {
		h = c.nextHeader(head)
	}
	h.ParentHash, h.Root = head.Hash(), head.Root
	h.TxHash, h.ReceiptHash, h.Bloom, h.GasUsed = types.EmptyTxsHash, types.EmptyReceiptsHash, types.Bloom{}, 0
	if h.BlobGasUsed != nil {
		h.BlobGasUsed = new(uint64)
	}
	if h.RequestsHash != nil {
		empty := types.EmptyRequestsHash
		h.RequestsHash = &empty
	}
	return h
}

// ForecastBlockJSON returns the JSON of the forecast block of v: its header, no
// transactions, no uncles.
func (c *Core) ForecastBlockJSON(v preconf.View, fullTx bool) json.RawMessage {
	h := c.Forecast(v)
	block := types.NewBlockWithHeader(h)
	if h.WithdrawalsHash != nil {
		block = block.WithBody(types.Body{Withdrawals: []*types.Withdrawal{}})
	}
	return ethjson.AppendBlock(nil, block, fullTx, c.ChainConfig, ethjson.BlockOptions{Header: h})
}

// nextHeader is the header of a block after head made from head alone: one second later (the
// next 200 ms slot after a Denim block), the protocol's base fee for that time, head's gas
// limit and fee recipient.
func (c *Core) nextHeader(head *types.Header) *types.Header {
	h := &types.Header{
		ParentHash: head.Hash(),
		UncleHash:  types.EmptyUncleHash,
		Coinbase:   head.Coinbase,
		Root:       head.Root,
		Difficulty: new(big.Int),
		Number:     new(big.Int).Add(head.Number, common.Big1),
		GasLimit:   head.GasLimit,
		Time:       head.Time + 1,
		Extra:      head.Extra,
	}
	if ms := c.Chain.TimeMs(head); ms != nil { // a Denim block: the next one is 200 ms later
		h.Time, _ = oprollup.NextDenimTime(*ms/1000, uint16(*ms%1000))
	}
	if head.BaseFee != nil {
		h.BaseFee = eip1559.CalcBaseFee(c.ChainConfig, head, h.Time)
	}
	if head.WithdrawalsHash != nil {
		w := *head.WithdrawalsHash
		h.WithdrawalsHash = &w
	}
	if head.ExcessBlobGas != nil {
		excess := eip4844.CalcExcessBlobGas(c.ChainConfig, head, h.Time)
		h.ExcessBlobGas, h.BlobGasUsed = &excess, new(uint64)
	}
	if head.ParentBeaconRoot != nil {
		h.ParentBeaconRoot = new(common.Hash)
	}
	return h
}
